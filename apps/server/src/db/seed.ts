import type { AppContext } from '../context.ts';
import { seedDemoConversationType } from '../modules/conversation-types/demo-playbook.ts';

/**
 * Data a fresh instance needs so a new user can try the product at once: the demo conversation type
 * (a sales playbook with three phases), added only while no conversation type exists. Must be
 * idempotent: it runs at every start.
 */
export async function seedDemoData(ctx: AppContext): Promise<void> {
  if (await seedDemoConversationType(ctx)) ctx.log.info('added the demo conversation type');
}
