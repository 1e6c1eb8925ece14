import type { AppContext } from '../context.ts';
import { createStorage, type Storage } from './storage.ts';

/**
 * Where call recordings and inbound media live: one storage per app (built from its config on first use),
 * shared by the recordings screens, the voice webhooks and the channels' media download.
 */
const storages = new WeakMap<AppContext, Storage>();

export function recordingStorage(ctx: AppContext): Storage {
  let storage = storages.get(ctx);
  if (!storage) {
    storage = createStorage(ctx.config);
    storages.set(ctx, storage);
  }
  return storage;
}
