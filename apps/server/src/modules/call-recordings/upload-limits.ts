import { Transform, type TransformCallback } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { callRecordings } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { storageRoom } from '../health/storage-room.ts';

/**
 * What one upload request may still write (docs/security.md "Uploads"): the smallest of the request limit,
 * the user's bytes left today, the user's storage quota left and the disk's room above STORAGE_MIN_FREE_BYTES.
 * The request is refused as soon as its declared or streamed size passes it, with the message of the limit
 * that binds, and the connection is closed instead of reading the rest.
 */
export interface UploadBudget {
  bytes: number;
  /** The answer when the budget is exceeded. */
  error: AppError;
}

const DAY_MS = 24 * 60 * 60_000;
/** Multipart boundaries and part headers around the files: a declared length may exceed the files by this. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

const dailyKey = (actor: Actor) => `upload-bytes:user:${actor.id}`;

export async function uploadBudget(ctx: AppContext, actor: Actor): Promise<UploadBudget> {
  const { UPLOAD_REQUEST_MAX_BYTES, UPLOAD_DAILY_BYTES, UPLOAD_QUOTA_BYTES } = ctx.config;
  const [today, [{ stored }], room] = await Promise.all([
    ctx.limits.read(dailyKey(actor)),
    ctx.db
      .select({ stored: sql<string>`coalesce(sum(${callRecordings.sizeBytes}), 0)` })
      .from(callRecordings)
      .where(eq(callRecordings.userId, actor.id)),
    storageRoom(ctx),
  ]);
  const storedBytes = Number(stored);
  const candidates: UploadBudget[] = [
    {
      bytes: room.usable,
      error: new AppError(
        507,
        'INSUFFICIENT_STORAGE',
        'The server is running out of storage space, so uploads are paused. Please try again later or tell your administrator.',
      ),
    },
    {
      bytes: UPLOAD_QUOTA_BYTES - storedBytes,
      error: new AppError(
        413,
        'STORAGE_QUOTA_EXCEEDED',
        `Your recordings use ${formatBytes(storedBytes)} of your ${formatBytes(UPLOAD_QUOTA_BYTES)} storage quota; this upload does not fit. Delete recordings you no longer need to make room.`,
      ),
    },
    {
      bytes: UPLOAD_DAILY_BYTES - today.count,
      error: new AppError(
        413,
        'DAILY_UPLOAD_LIMIT',
        `You can upload ${formatBytes(UPLOAD_DAILY_BYTES)} per day and have ${formatBytes(Math.max(0, UPLOAD_DAILY_BYTES - today.count))} left; ` +
          `the limit resets in ${formatHours(today.ttlMs)}.`,
      ),
    },
    {
      bytes: UPLOAD_REQUEST_MAX_BYTES,
      error: new AppError(413, 'UPLOAD_TOO_LARGE', `One upload may carry at most ${formatBytes(UPLOAD_REQUEST_MAX_BYTES)} in total. Send fewer files at a time.`),
    },
  ];
  // The first of the smallest: on a tie the disk and the quota explain more than the request limit.
  return candidates.reduce((smallest, c) => (c.bytes < smallest.bytes ? c : smallest));
}

/** Refuses before reading when nothing fits or the declared Content-Length already passes the budget. */
export function checkDeclaredLength(budget: UploadBudget, contentLength: string | undefined): void {
  if (budget.bytes <= 0) throw budget.error;
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > budget.bytes + MULTIPART_OVERHEAD_BYTES) throw budget.error;
}

/** Books an accepted upload against the user's bytes of the day. */
export async function countUploadedBytes(ctx: AppContext, actor: Actor, bytes: number): Promise<void> {
  if (bytes > 0) await ctx.limits.hit(dailyKey(actor), DAY_MS, bytes);
}

/**
 * Counts the bytes of all files of one request as they stream; fails the stream the moment the request
 * passes its budget or one file passes the per-file limit, so the rest is never read.
 */
export class UploadMeter {
  total = 0;
  constructor(
    private readonly budget: UploadBudget,
    private readonly maxFileBytes: number,
    private readonly fileTooLarge: () => AppError,
  ) {}

  /** A pass-through stream for one file. */
  file(): Transform {
    let fileBytes = 0;
    return new Transform({
      transform: (chunk: Buffer, _encoding, callback: TransformCallback) => {
        fileBytes += chunk.length;
        this.total += chunk.length;
        if (fileBytes > this.maxFileBytes) return callback(this.fileTooLarge());
        if (this.total > this.budget.bytes) return callback(this.budget.error);
        callback(null, chunk);
      },
    });
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${+(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${+(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

function formatHours(ms: number): string {
  const hours = Math.max(1, Math.ceil(ms / 3_600_000));
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}
