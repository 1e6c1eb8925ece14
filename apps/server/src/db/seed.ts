import type { AppContext } from '../context.ts';

/**
 * Data a fresh instance needs so a new user can try the product at once (the demo conversation type is
 * added with the admin console). Must be idempotent: it runs at every start.
 */
export async function seedDemoData(_ctx: AppContext): Promise<void> {}
