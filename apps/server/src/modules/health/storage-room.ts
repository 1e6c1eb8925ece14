import { rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../context.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';

export interface StorageRoom {
  /** Bytes that may still be written before the disk reaches STORAGE_MIN_FREE_BYTES (0 when below it). */
  usable: number;
  free: number;
  minFree: number;
}

/**
 * Free space where uploads land. Every upload passes through the local incoming directory (also with S3),
 * and with local storage that is on the recordings' disk; an embedded database in DATA_DIR usually shares it
 * too. Keeping STORAGE_MIN_FREE_BYTES free means a burst of uploads cannot fill the disk under the database.
 */
export async function storageRoom(ctx: AppContext): Promise<StorageRoom> {
  const stats = await statfs(recordingStorage(ctx).incomingDir);
  // bavail: blocks available to an unprivileged process (bfree includes the root reserve).
  const free = Number(stats.bavail) * Number(stats.bsize);
  const minFree = ctx.config.STORAGE_MIN_FREE_BYTES;
  return { usable: Math.max(0, free - minFree), free, minFree };
}

/** A file written and removed by the readiness check: a read-only or broken disk fails here, statfs would not. */
export const WRITE_PROBE_FILE = '.ready-probe';

export async function probeStorageWrite(ctx: AppContext): Promise<void> {
  const file = path.join(recordingStorage(ctx).incomingDir, WRITE_PROBE_FILE);
  await writeFile(file, 'ok');
  await rm(file, { force: true });
}
