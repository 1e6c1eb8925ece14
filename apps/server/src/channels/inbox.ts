import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';

/** Where an inbox row came from; decides how the inbound job reads its payload. */
export type InboxSource = 'meta' | 'twilio' | 'sms-gateway';

export const INBOUND_JOB = 'channels.inbound';

export interface InboundRequest {
  source: InboxSource;
  externalId: string;
  payload: unknown;
  simulated: boolean;
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

/** One statement: the rows (skipping redeliveries) and a processing job per stored row. Answers the jobs queued. */
async function storeBatch(ctx: AppContext, requests: InboundRequest[]): Promise<number> {
  const rows = requests.map(
    (r) => sql`(${r.source}, ${r.externalId}, ${JSON.stringify(r.payload)}::jsonb, ${r.simulated}::boolean)`,
  );
  const result = await ctx.db.execute(sql`
    with input (source, external_id, payload, simulated) as (values ${sql.join(rows, sql`, `)}),
    stored as (
      insert into webhook_inbox (source, external_id, payload, simulated)
      select source, external_id, payload, simulated from input
      on conflict (source, external_id) do nothing
      returning id
    ), queued as (
      insert into jobs (name, payload, max_attempts)
      select ${INBOUND_JOB}, jsonb_build_object('inboxId', id), 10 from stored
      returning id
    )
    select count(*)::int as queued from queued`);
  return Number((result as unknown as { rows: { queued: number | string }[] }).rows[0]?.queued ?? 0);
}
