import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';

/** Where an inbox row came from; decides how the inbound job reads its payload. */
export type InboxSource = 'meta' | 'twilio' | 'twilio-status' | 'sms-gateway';

export const INBOUND_JOB = 'channels.inbound';

export interface InboundRequest {
  source: InboxSource;
  externalId: string;
  payload: unknown;
  simulated: boolean;
  /** The ADMIN who posted it through the webhook simulator: the row is erased with them. */
  userId?: number;
}

/** Requests stored per statement at most; more wait for the next one. */
const MAX_BATCH = 500;

interface Waiting {
  request: InboundRequest;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Stores verified provider requests with their processing jobs. A request is acknowledged (2xx) only after
 * its row AND its job are committed, in one statement, so an acknowledged request is never lost (a crash
 * after the commit leaves a pending job any process picks up) and one whose insert failed was not
 * acknowledged (the provider redelivers). The same (source, externalId) twice is a redelivery: nothing is
 * stored or queued again.
 *
 * Group commit: while one statement is in flight, the requests that arrive meanwhile wait and go together in
 * the next one. Under load a single commit acknowledges many webhooks, which is what lets acknowledgement
 * keep up with a burst (docs/performance.md "Webhook acknowledgement"); alone, a request is stored at once.
 */
export class InboxWriter {
  private waiting: Waiting[] = [];
  private flushing = false;

  constructor(private readonly ctx: AppContext) {}

  accept(request: InboundRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const queued = await storeBatch(this.ctx, batch.map((w) => w.request));
          for (const w of batch) w.resolve();
          if (queued > 0) this.ctx.jobs.wake();
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/**
 * One transaction: the rows (skipping redeliveries) and a processing job per stored row, queued through the
 * runner's typed entry point. Answers the jobs queued.
 */
async function storeBatch(ctx: AppContext, requests: InboundRequest[]): Promise<number> {
  const rows = requests.map(
    (r) => sql`(${r.source}, ${r.externalId}, ${JSON.stringify(r.payload)}::jsonb, ${r.simulated}::boolean, ${r.userId ?? null}::int)`,
  );
  return ctx.db.transaction(async (tx) => {
    const result = await tx.execute(sql`
      with input (source, external_id, payload, simulated, user_id) as (values ${sql.join(rows, sql`, `)})
      insert into webhook_inbox (source, external_id, payload, simulated, user_id)
      select source, external_id, payload, simulated, user_id from input
      on conflict (source, external_id) do nothing
      returning id`);
    const ids = (result as unknown as { rows: { id: string | number }[] }).rows.map((row) => Number(row.id));
    await ctx.jobs.enqueueMany(INBOUND_JOB, ids.map((inboxId) => ({ inboxId })), { executor: tx, maxAttempts: 10 });
    return ids.length;
  });
}

/**
 * Marks an inbox row processed and links it to whom its events were about (the conversation, prospect and
 * account of the first stored channel message among `externalIds`), so deleting any of them erases the raw
 * payload at once (foreign keys with ON DELETE CASCADE); otherwise it goes after WEBHOOK_RETENTION_DAYS.
 */
export async function markInboxProcessed(ctx: AppContext, inboxId: number, externalIds: string[]): Promise<void> {
  const ids = externalIds.length > 0 ? sql.join(externalIds.map((id) => sql`${id}`), sql`, `) : null;
  // Scalar subqueries, not `update … from link`: an event that stored no channel message (a status, a read
  // receipt) finds no link row, and the inbox row must still be marked processed (and keep its links).
  const link = ids
    ? sql`(
        select cm.messaging_account_id, cm.conversation_id, c.prospect_id
        from channel_messages cm left join conversations c on c.id = cm.conversation_id
        where cm.external_id in (${ids})
        order by cm.conversation_id nulls last
        limit 1)`
    : null;
  await ctx.db.execute(sql`
    update webhook_inbox w set processed_at = now(), error = null${link ? sql`,
      messaging_account_id = coalesce((select l.messaging_account_id from ${link} l), w.messaging_account_id),
      conversation_id = coalesce((select l.conversation_id from ${link} l), w.conversation_id),
      prospect_id = coalesce((select l.prospect_id from ${link} l), w.prospect_id)` : sql``}
    where w.id = ${inboxId}`);
}
