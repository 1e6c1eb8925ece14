import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { channelMessages, conversations } from '../db/schema/index.ts';
import { emitConversationChanged, insertMessage } from '../conversations/conversation-store.ts';
import { contactAddress, describeOptOut, doNotContactOf } from '../conversations/opt-out.ts';
import type { ClaimedJob, JobDefinition } from '../jobs/runner.ts';
import { recordAgentError } from '../conversations/unanswered.ts';
import { recordCarrierOptOut, TWILIO_OPTED_OUT } from './opt-out-words.ts';
import { redactText } from '../lib/redact.ts';
import { agentError, type AgentErrorRecord } from '../conversations/agent-errors.ts';
import { endpointsOf, findAccountById, flagTokenRejected } from './accounts.ts';
import { senderFor } from './senders/index.ts';
import { splitMessage } from './split.ts';
import { ChannelSendError, type OutboundPart } from './types.ts';
import { decideWindow } from './windows.ts';
import { hasOptIn, NO_WHATSAPP_OPT_IN_MESSAGE } from '../conversations/consent.ts';
import { DELIVER_JOB, DELIVER_JOB_KEY_PREFIX, deliverJobKey } from './delivery-keys.ts';
import { scrub } from './senders/errors.ts';
import { jitteredBackoffMs } from '../lib/backoff.ts';


/** Channels reached through Meta's Graph API, whose code 190 means the stored token is no longer valid. */
const META_CHANNELS = new Set(['INSTAGRAM', 'FACEBOOK', 'WHATSAPP']);

/** Attempts of one outbox row before a transient failure counts as final. */
export const MAX_SEND_ATTEMPTS = 6;

/** Exponential backoff with full jitter: 2 s, 4 s, 8 s … (capped at 10 min), each drawn from [d/2, d]. */
export function retryDelayMs(attempt: number, random = Math.random): number {
  return jitteredBackoffMs(attempt, 2_000, 600_000, random);
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
  payload: { text: string; recipientId: string; messageId: number; optOutNotice?: boolean; template?: OutboundPart['template'] };
  written_by_human: boolean | null;
  simulated: boolean | null;
  last_prospect_at: string | Date | null;
  /**
   * An older row of the same conversation still waiting with a live delivery job: it goes first, so replies
   * keep their order. The time its job is due (in the past while it runs).
   */
  older_due_at: string | Date | null;
  /** Older PENDING rows of the conversation whose delivery job is gone: not waited for, but queued again. */
  orphaned_before: (number | string)[] | null;
}

/**
 * How long a row waits behind a predecessor that is being sent right now, unless its end wakes it sooner
 * (wakeNextInLine, and wakeIfNoLongerBehind for a predecessor that ended while this row was deciding to wait):
 * a fallback, e.g. for a predecessor whose worker was killed and whose lease has to run out first.
 */
const WAIT_BEHIND_RUNNING_MS = 5_000;

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
    // A predecessor without a job would hold this row (and every later one) forever: queue it again instead.
    for (const orphan of row.orphaned_before ?? []) {
      const id = Number(orphan);
      await ctx.jobs.enqueue(DELIVER_JOB, { outboxId: id }, { singletonKey: deliverJobKey(id), maxAttempts: 5 });
    }
    if (row.older_due_at) {
      // Not a poll every second: the predecessor's own retry time, or (while it is being sent) until its end
      // wakes this job (wakeNextInLine), with a fallback.
      const due = new Date(row.older_due_at).getTime();
      await retryLater(ctx, job, outboxId, new Date(due > Date.now() ? due + 1_000 : Date.now() + WAIT_BEHIND_RUNNING_MS));
      await wakeIfNoLongerBehind(ctx, row);
      return;
    }
    if (row.simulated) {
      await ctx.db.execute(sql`update outbox set status = 'SIMULATED', sent_at = now() where id = ${row.id}`);
      await wakeNextInLine(ctx, row);
      return;
    }
    // The opt-out is checked at the moment of sending, not only when the reply was written: a turn or a
    // follow-up that started before the STOP (or a retry waiting out its backoff) must not reach the person.
    if (await blockedByOptOut(ctx, row)) {
      await wakeNextInLine(ctx, row);
      return;
    }
    try {
      await deliver(ctx, row);
      await ctx.db.execute(sql`update outbox set status = 'SENT', sent_at = now(), attempts = attempts + 1, last_error = null, error_code = null where id = ${row.id}`);
      await wakeNextInLine(ctx, row);
    } catch (thrown) {
      // Every failure is counted on the row: one the senders did not classify (a bug, an SDK that throws
      // outside its request, a token sealed with another APP_SECRET) is retried like a transient one.
      const err = thrown instanceof ChannelSendError ? thrown : unclassified(thrown);
      if (!(thrown instanceof ChannelSendError)) ctx.log.error({ err: thrown, outboxId: row.id }, 'channel send failed unexpectedly');
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
      await wakeNextInLine(ctx, row);
    }
  },
};

/**
 * True (and the row marked FAILED with OPTED_OUT, a note left on the conversation) when the recipient opted
 * out before this row went out. The one opt-out confirmation is exempt.
 */
async function blockedByOptOut(ctx: AppContext, row: OutboxRow): Promise<boolean> {
  if (row.payload.optOutNotice || row.messaging_account_id === null) return false;
  const found = await doNotContactOf(ctx.db, contactAddress(row.channel, row.messaging_account_id, row.payload.recipientId));
  if (!found) return false;
  const reason = `Not sent: the person opted out (${describeOptOut(found)}) before this message went out.`;
  await ctx.db.execute(sql`
    update outbox set status = 'FAILED', error_code = 'OPTED_OUT', last_error = ${reason}
    where id = ${row.id} and status = 'PENDING'`);
  ctx.log.info({ outboxId: row.id, conversationId: row.conversation_id }, 'send blocked: the recipient opted out');
  if (row.conversation_id !== null) {
    await insertMessage(ctx.db, { conversationId: row.conversation_id, role: 'SYSTEM', message: reason });
    const [conversation] = await ctx.db
      .select({ id: conversations.id, uuid: conversations.uuid })
      .from(conversations)
      .where(eq(conversations.id, row.conversation_id));
    if (conversation) emitConversationChanged(ctx, conversation);
  }
  return true;
}

/** A failure no sender classified, as the unanswered list shows it (no secrets: scrubbed like the others). */
function unclassified(err: unknown): ChannelSendError {
  const message = err instanceof Error ? err.message : String(err);
  const code = err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'SEND_ERROR';
  return new ChannelSendError(
    {
      message: `Sending failed: ${scrub(message, [])}`.slice(0, 2000),
      type: 'internal',
      code,
      status: null,
      method: null,
      url: null,
      response: null,
      details: err instanceof Error ? err.name : null,
    },
    true,
  );
}

/**
 * The row is done (sent, failed, simulated): the conversation's next row waiting behind it (not in a backoff
 * of its own) runs now instead of at its fallback time.
 */
async function wakeNextInLine(ctx: AppContext, row: OutboxRow): Promise<void> {
  if (row.conversation_id === null) return;
  const result = await ctx.db.execute(sql`
    update jobs set run_at = now()
    where status = 'pending' and run_at > now() and singleton_key = (
      select ${DELIVER_JOB_KEY_PREFIX} || e.id from outbox e
      where e.conversation_id = ${row.conversation_id} and e.status = 'PENDING' and e.id > ${row.id}
        and (e.next_attempt_at is null or e.next_attempt_at <= now())
      order by e.id limit 1)
    returning id`);
  if ((result as unknown as { rows: unknown[] }).rows.length > 0) ctx.jobs.wake();
}

/**
 * Closes the missed wake-up: the predecessor may have finished between loading this row and parking its job,
 * and its wakeNextInLine then found this job still running. Re-checked after the park has committed, so one
 * of the two always sees the other: either the predecessor's wake finds this job parked, or this check finds
 * the predecessor done. Only a job parked until later is moved; a predecessor still pending keeps it waiting.
 */
async function wakeIfNoLongerBehind(ctx: AppContext, row: OutboxRow): Promise<void> {
  const result = await ctx.db.execute(sql`
    update jobs set run_at = now()
    where status = 'pending' and run_at > now() and singleton_key = ${`${DELIVER_JOB_KEY_PREFIX}${row.id}`}
      and not exists (
        select 1 from outbox e join jobs j on j.singleton_key = ${DELIVER_JOB_KEY_PREFIX} || e.id and j.status in ('pending', 'running')
        where e.conversation_id = ${row.conversation_id} and e.status = 'PENDING' and e.id < ${row.id})
    returning id`);
  if ((result as unknown as { rows: unknown[] }).rows.length > 0) ctx.jobs.wake();
}

async function loadOutboxRow(ctx: AppContext, outboxId: number): Promise<OutboxRow | null> {
  const result = await ctx.db.execute(sql`
    select o.id, o.channel, o.conversation_id, o.messaging_account_id, o.status, o.attempts, o.sent_parts, o.payload,
      m.written_by_human, p.simulated,
      (select max(pm.date_sent) from messages pm where pm.conversation_id = o.conversation_id and pm.role = 'PROSPECT') as last_prospect_at,
      (select min(j.run_at) from outbox e join jobs j on j.singleton_key = ${DELIVER_JOB_KEY_PREFIX} || e.id and j.status in ('pending', 'running')
        where e.conversation_id = o.conversation_id and e.status = 'PENDING' and e.id < o.id) as older_due_at,
      (select array_agg(e.id order by e.id) from outbox e
        where e.conversation_id = o.conversation_id and e.status = 'PENDING' and e.id < o.id
          and not exists (select 1 from jobs j where j.singleton_key = ${DELIVER_JOB_KEY_PREFIX} || e.id and j.status in ('pending', 'running'))) as orphaned_before
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
  const window = decideWindow(account, lastProspectAt, row.written_by_human === true, Date.now(), row.payload.template ?? null);
  if (!window.ok) throw new ChannelSendError(window.record, false);
  const { text, recipientId } = row.payload;
  // A template outside the 24-hour window starts a conversation: WhatsApp needs the person's opt-in for that.
  if (window.send.template && !(await hasOptIn(ctx.db, contactAddress(account.type, account.id, recipientId)))) {
    throw new ChannelSendError(permanent(`Not sent: ${NO_WHATSAPP_OPT_IN_MESSAGE}`, 'NO_WHATSAPP_OPT_IN'), false);
  }
  const sender = senderFor(account.type);
  // A template replaces the text (WhatsApp outside 24 h): it is one message.
  const parts = window.send.template ? [text] : splitMessage(text, sender.limit);
  for (let index = row.sent_parts; index < parts.length; index += 1) {
    // Taken before the request: never later than the channel's own timestamp of the message, which Meta's
    // delivery and read watermarks are compared with (delivery-state.ts).
    const requestedAt = new Date();
    const result = await sender.send(endpointsOf(ctx), account, { recipientId, text: parts[index], ...window.send });
    await ctx.db
      .insert(channelMessages)
      .values({
        messagingAccountId: account.id,
        externalId: result.externalId,
        direction: 'OUT',
        conversationId: row.conversation_id,
        messageId: row.payload.messageId,
        deliveryState: 'sent',
        createdAt: requestedAt,
      })
      .onConflictDoUpdate({
        target: [channelMessages.messagingAccountId, channelMessages.externalId],
        set: { conversationId: row.conversation_id, messageId: row.payload.messageId, createdAt: requestedAt },
      });
    await ctx.db.execute(sql`update outbox set sent_parts = ${index + 1} where id = ${row.id}`);
  }
}

function permanent(message: string, code: string): AgentErrorRecord {
  return agentError('channel', code, message);
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
  // Twilio Advanced Opt-Out answered for us: the person wrote STOP to Twilio, so they are opted out here too.
  if (row.channel === 'TWILIO' && record.code === TWILIO_OPTED_OUT) await recordCarrierOptOut(ctx, row.payload.recipientId);
}

/** Frees this job's singleton key and queues the next attempt under it, in one transaction. */
async function retryLater(ctx: AppContext, job: ClaimedJob, outboxId: number, at: Date): Promise<void> {
  await ctx.jobs.completeAndEnqueue(job, DELIVER_JOB, { outboxId }, { singletonKey: deliverJobKey(outboxId), runAt: at, maxAttempts: 5 });
}
