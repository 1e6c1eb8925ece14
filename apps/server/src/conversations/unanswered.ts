import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { unansweredConversations } from '../db/schema/index.ts';
import { afterCommit, type Executor } from '../db/after-commit.ts';
import { agentError, type AgentErrorRecord } from './agent-errors.ts';
import { redactDeep } from '../lib/redact.ts';

/**
 * Bookkeeping of the unanswered-conversations list (spec §2.9): one entry per conversation waiting on the
 * prospect, with its follow-up count and the time the next follow-up is due, plus the errors the agent hit.
 * Functions taking an `executor` (an open transaction) write through it; their `unanswered.changed` event
 * goes out once that transaction commits (db/after-commit.ts), and never if it rolls back.
 */
export const followUpJobKey = (conversationId: number) => `follow-up:${conversationId}`;

/** Errors kept per entry; older ones are dropped so the JSON stays small. */
const MAX_ERRORS = 20;

export async function findUnanswered(ctx: AppContext, conversationId: number, executor: Executor = ctx.db) {
  const [entry] = await executor
    .select()
    .from(unansweredConversations)
    .where(eq(unansweredConversations.conversationId, conversationId))
    .limit(1);
  return entry;
}

/**
 * The agent just wrote: a new silence starts. The count restarts and the first follow-up is due after the
 * first delay. An entry the admin made INACTIVE stays INACTIVE until the prospect replies.
 */
export async function startSilence(
  ctx: AppContext,
  conversationId: number,
  firstDelayMinutes: number,
  executor?: Executor,
): Promise<UnansweredEntry> {
  const due = new Date(Date.now() + firstDelayMinutes * 60_000);
  const [entry] = await (executor ?? ctx.db)
    .insert(unansweredConversations)
    .values({ conversationId, status: 'ACTIVE', followUpCount: 0, earliestReplyDateTime: due })
    .onConflictDoUpdate({
      target: unansweredConversations.conversationId,
      set: { followUpCount: 0, earliestReplyDateTime: due, updatedAt: new Date() },
    })
    .returning();
  await afterCommit(executor ?? ctx.db, () => ctx.events.emit('unanswered.changed', { conversationId }));
  return entry;
}

export type UnansweredEntry = typeof unansweredConversations.$inferSelect;

/** A follow-up was sent: count it and move the due time to the next delay (the last delay repeats). */
export async function countFollowUp(
  ctx: AppContext,
  conversationId: number,
  delaysMinutes: number[],
  executor?: Executor,
): Promise<number> {
  const db = executor ?? ctx.db;
  const entry = await findUnanswered(ctx, conversationId, db);
  const count = (entry?.followUpCount ?? 0) + 1;
  const due = new Date(Date.now() + delaysMinutes[Math.min(count, delaysMinutes.length - 1)] * 60_000);
  await db
    .insert(unansweredConversations)
    .values({ conversationId, status: 'ACTIVE', followUpCount: count, earliestReplyDateTime: due })
    .onConflictDoUpdate({
      target: unansweredConversations.conversationId,
      set: { followUpCount: count, earliestReplyDateTime: due, updatedAt: new Date() },
    });
  await afterCommit(db, () => ctx.events.emit('unanswered.changed', { conversationId }));
  return count;
}

/**
 * The prospect answered (or the conversation ended): the pending follow-up is cancelled and the entry goes
 * away. An entry holding errors stays, with its count reset, so the admin still sees what went wrong.
 * Returns whether the entry changed.
 */
export async function endSilence(ctx: AppContext, conversationId: number, executor?: Executor): Promise<boolean> {
  await ctx.jobs.cancel(followUpJobKey(conversationId), executor);
  const result = await (executor ?? ctx.db).execute(sql`
    with removed as (
      delete from ${unansweredConversations} where conversation_id = ${conversationId} and errors = '[]' returning id
    ), reset as (
      update ${unansweredConversations} set follow_up_count = 0, updated_at = now()
      where conversation_id = ${conversationId} and errors <> '[]' and follow_up_count <> 0 returning id
    )
    select (select count(*) from removed) + (select count(*) from reset) as changed`);
  const changed = Number((result as unknown as { rows: { changed: string | number }[] }).rows[0]?.changed ?? 0);
  if (changed > 0) await afterCommit(executor ?? ctx.db, () => ctx.events.emit('unanswered.changed', { conversationId }));
  return changed > 0;
}

/**
 * Appends an error to the conversation's entry (created ACTIVE when missing) so it shows in the list. The
 * entry is made to exist first, then locked (`FOR UPDATE`) while its errors are read and written: two errors
 * recorded at the same moment (a failed send and a failed turn) both stay, where a read-then-write without
 * the lock kept only the last one.
 */
export async function recordAgentError(
  ctx: AppContext,
  conversationId: number,
  error: AgentErrorRecord,
  executor?: Executor,
): Promise<void> {
  // A provider's message or answer may quote a token or key: stored without it (lib/redact.ts).
  const record = redactDeep({ ...error, at: error.at ?? new Date().toISOString() });
  const append = async (db: Executor) => {
    await db
      .insert(unansweredConversations)
      .values({ conversationId, status: 'ACTIVE', earliestReplyDateTime: new Date(), errors: '[]' })
      .onConflictDoNothing();
    const [entry] = await db
      .select()
      .from(unansweredConversations)
      .where(eq(unansweredConversations.conversationId, conversationId))
      .for('update');
    if (!entry) return;
    const errors = [...readErrors(entry.errors), record].slice(-MAX_ERRORS);
    await db
      .update(unansweredConversations)
      .set({ errors: JSON.stringify(errors), status: 'ACTIVE', updatedAt: new Date() })
      .where(eq(unansweredConversations.id, entry.id));
  };
  const write = async (db: Executor) => {
    await append(db);
    await afterCommit(db, () => ctx.events.emit('unanswered.changed', { conversationId }));
  };
  if (executor) await write(executor);
  else await ctx.db.transaction(write);
}

/** Stored errors text as an array; unreadable text (an admin's edit) is kept as one entry rather than lost. */
function readErrors(text: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [agentError('unreadable', null, text)];
  }
}
