import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { channelMessages } from '../db/schema/index.ts';
import type { ClaimedJob, JobDefinition } from '../jobs/runner.ts';
import { recordAgentError } from '../agent/unanswered.ts';
import { redactText } from '../lib/redact.ts';
import type { AgentErrorRecord } from '../agent/llm/provider.ts';
import { endpointsOf, findAccountById, flagTokenRejected } from './accounts.ts';
import { senderFor } from './senders/index.ts';
import { splitMessage } from './split.ts';
import { ChannelSendError } from './types.ts';
import { decideWindow } from './windows.ts';
import { DELIVER_JOB, deliverJobKey } from './delivery-keys.ts';


/** Channels reached through Meta's Graph API, whose code 190 means the stored token is no longer valid. */
const META_CHANNELS = new Set(['INSTAGRAM', 'FACEBOOK', 'WHATSAPP']);

/** Attempts of one outbox row before a transient failure counts as final. */
export const MAX_SEND_ATTEMPTS = 6;

/** Exponential backoff with full jitter: 2 s, 4 s, 8 s … (capped at 10 min), each drawn from [d/2, d]. */
export function retryDelayMs(attempt: number, random = Math.random): number {
  const ceiling = Math.min(600_000, 2_000 * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

interface OutboxRow {
  /** bigserial: node-postgres answers it as a string (PGlite as a number); use the job's outboxId where a number matters. */
  id: number | string;
  channel: string;
  conversation_id: number | null;
  messaging_account_id: number | null;
  status: string;
  attempts: number;
  sent_parts: number;
  payload: { text: string; recipientId: string; messageId: number };
  written_by_human: boolean | null;
  simulated: boolean | null;
  last_prospect_at: string | Date | null;
  /** An older row of the same conversation still waiting: it goes first, so replies keep their order. */
  older_pending_at: string | Date | null;
}

/**
 * Sends one outbox row through its channel (DESIGN.md §7, docs/channels.md): split to the channel's limit,
 * within Meta's messaging windows, each part's provider id recorded (echoes are recognised by it). Transient
 * failures are retried with backoff and jitter; a permanent one, or the last attempt, marks the row FAILED and
 * shows the error in the conversation's unanswered entry (spec §2.9). A retry resumes after the parts already
 * delivered. Replies to a simulated prospect are marked SIMULATED and never leave the server.
 */
export const deliverJob: JobDefinition<z.ZodObject<{ outboxId: z.ZodNumber }>> = {
  name: DELIVER_JOB,
  payload: z.object({ outboxId: z.number().int().positive() }),
  async handler(ctx, { outboxId }, job) {
    const row = await loadOutboxRow(ctx, outboxId);
    if (!row || row.status !== 'PENDING') return;
    if (row.older_pending_at) {
      await retryLater(ctx, job, outboxId, new Date(Math.max(Date.now(), new Date(row.older_pending_at).getTime()) + 1_000));
      return;
    }
    if (row.simulated) {
      await ctx.db.execute(sql`update outbox set status = 'SIMULATED', sent_at = now() where id = ${row.id}`);
      return;
    }
    try {
      await deliver(ctx, row);
      await ctx.db.execute(sql`update outbox set status = 'SENT', sent_at = now(), attempts = attempts + 1, last_error = null, error_code = null where id = ${row.id}`);
    } catch (err) {
      if (!(err instanceof ChannelSendError)) throw err;
      const attempts = row.attempts + 1;
      if (err.transient && attempts < MAX_SEND_ATTEMPTS) {
        const at = new Date(Date.now() + retryDelayMs(attempts));
        await ctx.db.execute(sql`
          update outbox set attempts = ${attempts}, next_attempt_at = ${at.toISOString()}::timestamptz,
            error_code = ${err.record.code}, last_error = ${redactText(err.record.message).slice(0, 2000)}
          where id = ${row.id}`);
        ctx.log.warn({ outboxId: row.id, attempt: attempts, error: err.record }, 'channel send failed; retrying');
        await retryLater(ctx, job, outboxId, at);
        return;
      }
      await fail(ctx, row, attempts, err.record);
    }
  },
};

async function loadOutboxRow(ctx: AppContext, outboxId: number): Promise<OutboxRow | null> {
  const result = await ctx.db.execute(sql`
    select o.id, o.channel, o.conversation_id, o.messaging_account_id, o.status, o.attempts, o.sent_parts, o.payload,
      m.written_by_human, p.simulated,
      (select max(pm.date_sent) from messages pm where pm.conversation_id = o.conversation_id and pm.role = 'PROSPECT') as last_prospect_at,
      (select min(e.next_attempt_at) from outbox e where e.conversation_id = o.conversation_id and e.status = 'PENDING' and e.id < o.id) as older_pending_at
    from outbox o
    left join messages m on m.id = o.message_id
    left join conversations c on c.id = o.conversation_id
    left join prospects p on p.id = c.prospect_id
    where o.id = ${outboxId}`);
  return (result as unknown as { rows: OutboxRow[] }).rows[0] ?? null;
}

async function deliver(ctx: AppContext, row: OutboxRow): Promise<void> {
  const account = row.messaging_account_id ? await findAccountById(ctx, row.messaging_account_id) : null;
  if (!account) {
    throw new ChannelSendError(permanent('The messaging account of this conversation no longer exists.', 'NO_ACCOUNT'), false);
  }
  const lastProspectAt = row.last_prospect_at ? new Date(row.last_prospect_at) : null;
  const window = decideWindow(account, lastProspectAt, row.written_by_human === true);
  if (!window.ok) throw new ChannelSendError(window.record, false);
  const sender = senderFor(account.type);
  const { text, recipientId } = row.payload;
  // A template replaces the text (WhatsApp outside 24 h): it is one message.
  const parts = window.send.template ? [text] : splitMessage(text, sender.limit);
  for (let index = row.sent_parts; index < parts.length; index += 1) {
    const result = await sender.send(endpointsOf(ctx), account, { recipientId, text: parts[index], ...window.send });
    await ctx.db
      .insert(channelMessages)
      .values({ messagingAccountId: account.id, externalId: result.externalId, direction: 'OUT', conversationId: row.conversation_id, messageId: row.payload.messageId })
      .onConflictDoUpdate({
        target: [channelMessages.messagingAccountId, channelMessages.externalId],
        set: { conversationId: row.conversation_id, messageId: row.payload.messageId },
      });
    await ctx.db.execute(sql`update outbox set sent_parts = ${index + 1} where id = ${row.id}`);
  }
}

function permanent(message: string, code: string): AgentErrorRecord {
  return { message, type: 'channel', code, status: null, method: null, url: null, response: null, details: null };
}

async function fail(ctx: AppContext, row: OutboxRow, attempts: number, record: AgentErrorRecord): Promise<void> {
  await ctx.db.execute(sql`
    update outbox set status = 'FAILED', attempts = ${attempts}, error_code = ${record.code},
      last_error = ${redactText(record.message).slice(0, 2000)}
    where id = ${row.id}`);
  ctx.log.warn({ outboxId: row.id, error: record }, 'channel send failed for good');
  // Meta 190 (token invalid or expired, any subcode): the account must be reconnected; say so on its screens.
  if (row.messaging_account_id && META_CHANNELS.has(row.channel) && /^190(\/|$)/.test(record.code ?? '')) {
    await flagTokenRejected(ctx, row.messaging_account_id);
  }
  if (row.conversation_id) await recordAgentError(ctx, row.conversation_id, record);
}

/** Frees this job's singleton key and queues the next attempt under it, in one transaction. */
async function retryLater(ctx: AppContext, job: ClaimedJob, outboxId: number, at: Date): Promise<void> {
  await ctx.jobs.completeAndEnqueue(job, DELIVER_JOB, { outboxId }, { singletonKey: deliverJobKey(outboxId), runAt: at, maxAttempts: 5 });
}
