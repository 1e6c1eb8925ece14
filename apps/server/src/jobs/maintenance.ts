import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { deleteExpiredSessions } from '../modules/users/session.service.ts';
import type { JobDefinition } from './runner.ts';

/** Finished jobs are kept this long for inspection, failed ones longer. */
export const DONE_JOB_RETENTION_DAYS = 7;
export const FAILED_JOB_RETENTION_DAYS = 30;
export const MAINTENANCE_INTERVAL_MS = 60 * 60_000;
/** Webhook events (and their deliveries) are kept this long for the screen's history and resends. */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;
export const MAINTENANCE_JOB = 'maintenance';
const MAINTENANCE_KEY = 'maintenance';

function affected(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return Number(r.rowCount ?? r.affectedRows ?? 0);
}

/**
 * Housekeeping that keeps tables from growing without bound: expired sessions, old finished jobs, old outbound
 * webhook events (WEBHOOK_EVENT_RETENTION_DAYS) and the raw
 * webhook payloads (message texts, phone numbers) of processed inbox rows after WEBHOOK_RETENTION_DAYS. An
 * inbox row that was never processed (its job failed for good) goes after FAILED_JOB_RETENTION_DAYS.
 * Idempotent and cheap; it touches only rows nobody uses any more.
 */
export async function runMaintenance(ctx: AppContext): Promise<{ jobsDeleted: number; inboxDeleted: number }> {
  await deleteExpiredSessions(ctx);
  const jobsResult = await ctx.db.execute(sql`
    delete from jobs
    where (status = 'done' and finished_at < now() - (${DONE_JOB_RETENTION_DAYS}::int * interval '1 day'))
       or (status = 'failed' and finished_at < now() - (${FAILED_JOB_RETENTION_DAYS}::int * interval '1 day'))`);
  const inboxResult = await ctx.db.execute(sql`
    delete from webhook_inbox
    where (processed_at is not null and processed_at < now() - (${ctx.config.WEBHOOK_RETENTION_DAYS}::int * interval '1 day'))
       or (processed_at is null and received_at < now() - (${FAILED_JOB_RETENTION_DAYS}::int * interval '1 day'))`);
  // Outbound webhook events past their retention, unless a delivery still waits (an endpoint disabled for long).
  await ctx.db.execute(sql`
    delete from webhook_events e
    where e.created_at < now() - (${WEBHOOK_EVENT_RETENTION_DAYS}::int * interval '1 day')
      and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'PENDING')`);
  return { jobsDeleted: affected(jobsResult), inboxDeleted: affected(inboxResult) };
}

/**
 * Queues the hourly housekeeping run unless one is already waiting or running (one per database, whatever
 * the number of instances). Called at start; each run queues the next in the transaction that completes it.
 */
export async function scheduleMaintenance(ctx: AppContext, runAt = new Date()): Promise<void> {
  await ctx.jobs.enqueue(MAINTENANCE_JOB, {}, { runAt, singletonKey: MAINTENANCE_KEY, maxAttempts: 3 });
}

const payload = z.object({});

export const maintenanceJob: JobDefinition<typeof payload> = {
  name: MAINTENANCE_JOB,
  payload,
  async handler(ctx, _payload, job) {
    const { jobsDeleted, inboxDeleted } = await runMaintenance(ctx);
    ctx.log.debug({ jobsDeleted, inboxDeleted }, 'maintenance');
    await ctx.jobs.completeAndEnqueue(job, MAINTENANCE_JOB, {}, {
      runAt: new Date(Date.now() + MAINTENANCE_INTERVAL_MS),
      singletonKey: MAINTENANCE_KEY,
      maxAttempts: 3,
    });
  },
};
