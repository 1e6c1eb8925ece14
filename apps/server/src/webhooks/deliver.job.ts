import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { type JobDefinition, JobDeferredError } from '../jobs/runner.ts';
import { rowsOf } from '../lib/limits.ts';
import { outboundUrlProblem } from '../lib/outbound-url.ts';
import { redactText } from '../lib/redact.ts';
import { WEBHOOK_DELIVER_JOB, WEBHOOK_JOB_MAX_ATTEMPTS } from '../lib/webhook-outbox.ts';
import { signWebhook } from './signature.ts';
import { jitteredBackoffMs } from '../lib/backoff.ts';

/** Deliveries are retried for this long after their event, then given up (and the endpoint disabled). */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3_600_000;
/** A receiver has this long to answer. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * A delivery waiting behind one being sent right now looks again after this. Normally it never does: the
 * worker that finishes a delivery goes on with the next of its lane itself (continueLane); this only bounds
 * the delay when that hand-over is missed (the waiting job was being claimed at that very moment).
 */
const WAIT_BEHIND_RUNNING_MS = 10_000;
/** A worker delivers at most this many of a lane in a row before it hands the lane to the runner's queue. */
const LANE_RUN = 50;
/** How long a delivery taken over from its own job is leased (a receiver has WEBHOOK_TIMEOUT_MS to answer). */
const TAKEOVER_LEASE_MS = 60_000;

type Outcome = { kind: 'done' } | { kind: 'retry'; at: Date };

/** Exponential backoff with jitter: 10 s, 20 s, 40 s … capped at an hour, each drawn from [d/2, d]. About 30 attempts in a day. */
export function webhookRetryDelayMs(attempt: number, random = Math.random): number {
  return jitteredBackoffMs(attempt, 10_000, 3_600_000, random);
}

interface DeliveryRow {
  id: number | string;
  endpoint_id: number;
  lane: string;
  status: string;
  attempts: number;
  next_attempt_at: string | Date;
  event_uuid: string;
  type: string;
  data: unknown;
  event_created_at: string | Date;
  url: string;
  secret_sealed: string;
  enabled: boolean;
  /** An older delivery of the same lane and endpoint still PENDING: it goes first. When it is due. */
  older_due_at: string | Date | null;
}

/**
 * Sends one delivery (docs/api.md "Events"): in order within its lane (a conversation's events) per endpoint,
 * signed, retried with backoff for a day. At least once: a worker killed after the receiver answered but
 * before the row was marked sends it again (same X-Webhook-Id) once its lease runs out.
 */
export const webhookDeliverJob: JobDefinition<z.ZodObject<{ deliveryId: z.ZodNumber }>> = {
  name: WEBHOOK_DELIVER_JOB,
  payload: z.object({ deliveryId: z.number().int().positive() }),
  leaseMs: 30_000,
  async handler(ctx, { deliveryId }) {
    const row = await loadDelivery(ctx, deliveryId);
    if (!row || row.status !== 'PENDING' || !row.enabled) return;
    if (row.older_due_at) {
      const due = new Date(row.older_due_at).getTime();
      throw new JobDeferredError('an older delivery of its lane goes first', due > Date.now() ? due - Date.now() + 1_000 : WAIT_BEHIND_RUNNING_MS, () =>
        olderStillPending(ctx, row),
      );
    }
    const dueIn = new Date(row.next_attempt_at).getTime() - Date.now();
    if (dueIn > 0) throw new JobDeferredError('waiting for its retry time', dueIn);
    const outcome = await attempt(ctx, row);
    // Back to pending until its next attempt, without counting a job attempt (those are for crashes).
    if (outcome.kind === 'retry') throw new JobDeferredError('webhook delivery failed; retrying', outcome.at.getTime() - Date.now());
    await continueLane(ctx, row);
  },
};

/**
 * The lane's next deliveries, one after the other in this worker: each is taken from its own job (leased like
 * a claim, so a worker killed meanwhile leaves it to the runner once the lease runs out) and that job is then
 * completed or put back to wait for its retry. A conversation's burst thus flows without a round trip through
 * the queue per event, and the jobs waiting behind are not claimed over and over.
 */
async function continueLane(ctx: AppContext, first: DeliveryRow): Promise<void> {
  let current = first;
  for (let n = 0; n < LANE_RUN; n++) {
    const taken = rowsOf<{ job_id: number | string; attempts: number; delivery_id: number | string }>(
      await ctx.db.execute(sql`
        update jobs j set status = 'running', attempts = j.attempts + 1, locked_until = now() + (${TAKEOVER_LEASE_MS}::int * interval '1 millisecond')
        from (
          select d.id from webhook_deliveries d
          where d.endpoint_id = ${current.endpoint_id} and d.lane = ${current.lane} and d.status = 'PENDING' and d.id > ${current.id}
          order by d.id limit 1
        ) next
        where j.singleton_key = 'webhook-delivery:' || next.id and j.status = 'pending'
          and (select d.next_attempt_at from webhook_deliveries d where d.id = next.id) <= now()
        returning j.id as job_id, j.attempts, next.id as delivery_id`),
    )[0];
    if (!taken) return;
    const job = sql`id = ${taken.job_id} and attempts = ${taken.attempts} and status = 'running'`;
    const row = await loadDelivery(ctx, Number(taken.delivery_id));
    if (!row || row.status !== 'PENDING' || !row.enabled || row.older_due_at) {
      // Nothing to send (or not yet): the job goes back to the runner, which decides as its handler would.
      await ctx.db.execute(sql`update jobs set status = 'pending', attempts = attempts - 1, locked_until = null, run_at = now() where ${job}`);
      ctx.jobs.wake();
      return;
    }
    const outcome = await attempt(ctx, row);
    if (outcome.kind === 'retry') {
      await ctx.db.execute(sql`
        update jobs set status = 'pending', attempts = attempts - 1, locked_until = null, run_at = ${outcome.at.toISOString()}::timestamptz
        where ${job}`);
      return;
    }
    await ctx.db.execute(sql`update jobs set status = 'done', finished_at = now(), last_error = null where ${job}`);
    current = row;
  }
  await wakeNextInLine(ctx, current);
}

/** The body every endpoint receives for an event: stable id, type, time and the object. */
export function webhookBody(row: Pick<DeliveryRow, 'event_uuid' | 'type' | 'data' | 'event_created_at'>): string {
  const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
  return JSON.stringify({ id: row.event_uuid, type: row.type, createdAt: new Date(row.event_created_at).toISOString(), data });
}

async function attempt(ctx: AppContext, row: DeliveryRow): Promise<Outcome> {
  const body = webhookBody(row);
  const started = Date.now();
  let code: number | null = null;
  let error: string | null = null;
  const problem = await outboundUrlProblem(row.url, { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS });
  if (problem) error = problem;
  else {
    try {
      const secret = ctx.secrets.open(row.secret_sealed);
      const response = await fetch(row.url, {
        method: 'POST',
        // Never followed: a redirect could lead to an address the rule above refuses.
        redirect: 'manual',
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'SalesAgent-Webhooks/1',
          'x-webhook-id': row.event_uuid,
          'x-webhook-event': row.type,
          'x-webhook-signature': signWebhook(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
      code = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (code < 200 || code >= 300) error = `The receiver answered HTTP ${code}.`;
    } catch (err) {
      const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      error = err instanceof Error && err.name === 'TimeoutError' ? `No answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.` : `Could not reach the receiver: ${cause}`;
    }
  }
  const ms = Date.now() - started;
  if (error === null) {
    await ctx.db.execute(sql`
      with d as (
        update webhook_deliveries set status = 'DELIVERED', attempts = attempts + 1, response_code = ${code}, response_ms = ${ms},
          last_error = null, last_attempt_at = now()
        where id = ${row.id} and status = 'PENDING' returning endpoint_id
      )
      update webhook_endpoints set consecutive_failures = 0 where id in (select endpoint_id from d) and consecutive_failures <> 0`);
    return { kind: 'done' };
  }
  return recordFailure(ctx, row, code, ms, redactText(error).slice(0, 1000));
}

async function recordFailure(ctx: AppContext, row: DeliveryRow, code: number | null, ms: number, error: string): Promise<Outcome> {
  const attempts = row.attempts + 1;
  const expired = Date.now() - new Date(row.event_created_at).getTime() >= WEBHOOK_RETRY_WINDOW_MS;
  const next = new Date(Date.now() + webhookRetryDelayMs(attempts));
  const limit = ctx.config.WEBHOOK_DISABLE_AFTER_FAILURES;
  const reason = expired
    ? `Disabled automatically: a delivery kept failing for a day (last: ${error})`
    : `Disabled automatically after ${limit} failed deliveries in a row (last: ${error})`;
  const result = await ctx.db.execute(sql`
    with d as (
      update webhook_deliveries set status = ${expired ? 'FAILED' : 'PENDING'}, attempts = ${attempts}, response_code = ${code},
        response_ms = ${ms}, last_error = ${error}, last_attempt_at = now(), next_attempt_at = ${next.toISOString()}::timestamptz
      where id = ${row.id} and status = 'PENDING' returning endpoint_id
    )
    update webhook_endpoints e set consecutive_failures = e.consecutive_failures + 1,
      enabled = case when ${expired}::boolean or e.consecutive_failures + 1 >= ${limit}::int then false else e.enabled end,
      disabled_reason = case when e.enabled and (${expired}::boolean or e.consecutive_failures + 1 >= ${limit}::int) then ${reason} else e.disabled_reason end
    where e.id in (select endpoint_id from d)
    returning e.enabled`);
  const [endpoint] = rowsOf<{ enabled: boolean }>(result);
  ctx.log.warn({ deliveryId: row.id, endpointId: row.endpoint_id, attempt: attempts, error, disabled: endpoint?.enabled === false }, 'webhook delivery failed');
  // Given up (the lane goes on) or the endpoint disabled (the rest waits for it to be enabled again).
  if (expired || endpoint?.enabled === false) return { kind: 'done' };
  return { kind: 'retry', at: next };
}

/** The delivery is done: the lane's next one (waiting for it, not in a backoff of its own) runs now. */
async function wakeNextInLine(ctx: AppContext, row: DeliveryRow): Promise<void> {
  const result = await ctx.db.execute(sql`
    update jobs set run_at = now()
    where status = 'pending' and run_at > now() and singleton_key = (
      select 'webhook-delivery:' || d.id from webhook_deliveries d
      where d.endpoint_id = ${row.endpoint_id} and d.lane = ${row.lane} and d.status = 'PENDING' and d.id > ${row.id}
        and d.next_attempt_at <= now()
      order by d.id limit 1)
    returning id`);
  if (rowsOf(result).length > 0) ctx.jobs.wake();
}

async function loadDelivery(ctx: AppContext, deliveryId: number): Promise<DeliveryRow | null> {
  const result = await ctx.db.execute(sql`
    select d.id, d.endpoint_id, d.lane, d.status, d.attempts, d.next_attempt_at,
      e.event_id as event_uuid, e.type, e.data, e.created_at as event_created_at,
      ep.url, ep.secret_sealed, ep.enabled,
      (select min(o.next_attempt_at) from webhook_deliveries o
        where o.endpoint_id = d.endpoint_id and o.lane = d.lane and o.status = 'PENDING' and o.id < d.id) as older_due_at
    from webhook_deliveries d
    join webhook_events e on e.id = d.event_id
    join webhook_endpoints ep on ep.id = d.endpoint_id
    where d.id = ${deliveryId}`);
  return rowsOf<DeliveryRow>(result)[0] ?? null;
}

/** An older delivery of the row's lane and endpoint is still PENDING (asked again once the row's job is parked). */
async function olderStillPending(ctx: AppContext, row: DeliveryRow): Promise<boolean> {
  const result = await ctx.db.execute(sql`
    select exists (select 1 from webhook_deliveries o
      where o.endpoint_id = ${row.endpoint_id} and o.lane = ${row.lane} and o.status = 'PENDING' and o.id < ${row.id}) as waiting`);
  return rowsOf<{ waiting: boolean }>(result)[0]?.waiting ?? false;
}

/** Queues the job of every PENDING delivery of an endpoint that has none (an endpoint enabled again). */
export async function requeueEndpoint(ctx: AppContext, endpointId: number): Promise<void> {
  await ctx.db.execute(sql`
    insert into jobs (name, payload, singleton_key, max_attempts)
    select ${WEBHOOK_DELIVER_JOB}, jsonb_build_object('deliveryId', d.id), 'webhook-delivery:' || d.id, ${WEBHOOK_JOB_MAX_ATTEMPTS}::int
    from webhook_deliveries d where d.endpoint_id = ${endpointId} and d.status = 'PENDING'
    order by d.id
    on conflict do nothing`);
  ctx.jobs.wake();
}
