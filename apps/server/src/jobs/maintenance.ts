import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { deleteExpiredSessions } from '../modules/users/session.service.ts';

/** Finished jobs are kept this long for inspection, failed ones longer. */
export const DONE_JOB_RETENTION_DAYS = 7;
export const FAILED_JOB_RETENTION_DAYS = 30;
export const MAINTENANCE_INTERVAL_MS = 60 * 60_000;

/**
 * Housekeeping that keeps tables from growing without bound: expired sessions and old finished jobs.
 * Idempotent and cheap, so every instance may run it; it touches only rows nobody uses any more.
 */
export async function runMaintenance(ctx: AppContext): Promise<{ jobsDeleted: number }> {
  await deleteExpiredSessions(ctx);
  const result = await ctx.db.execute(sql`
    delete from jobs
    where (status = 'done' and finished_at < now() - (${DONE_JOB_RETENTION_DAYS}::int * interval '1 day'))
       or (status = 'failed' and finished_at < now() - (${FAILED_JOB_RETENTION_DAYS}::int * interval '1 day'))`);
  const jobsDeleted = Number((result as unknown as { rowCount?: number; affectedRows?: number }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
  return { jobsDeleted };
}

/** Runs maintenance now and then every hour until the returned stop function is called. */
export function startMaintenance(ctx: AppContext): () => void {
  const run = () => runMaintenance(ctx).catch((err) => ctx.log.warn({ err }, 'maintenance failed'));
  void run();
  const timer = setInterval(run, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
