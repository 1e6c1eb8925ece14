import type { AppContext } from '../context.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import { recordingStorageKey } from './urls.ts';

/** Removes a call's recording file (the conversation is being deleted); a failure is logged, not thrown. */
export async function removeCallRecording(ctx: AppContext, uuid: string): Promise<void> {
  try {
    await recordingStorage(ctx).remove(recordingStorageKey(uuid));
  } catch (err) {
    ctx.log.warn({ err, uuid }, 'could not remove the recording of a deleted call');
  }
}
