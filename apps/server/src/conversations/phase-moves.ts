import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { afterCommit } from '../db/after-commit.ts';
import { conversations } from '../db/schema/index.ts';
import { PHASE } from '@sales-agent/shared/enums';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import { emitConversationChanged, type Executor, type LoadedConversation } from './conversation-store.ts';

/** Twilio ends any call after its time limit (4 h by default): a "live" status older than that is stale. */
export const LONGEST_CALL_MS = 4 * 3_600_000;

/**
 * A call conversation (docs/voice.md) whose line is open: queued, initiated, ringing or in progress (null
 * until Twilio has accepted the call), and started less than the longest call ago: a status whose final
 * callback was lost does not stay live forever. For display and voice bookkeeping only; where a reply goes
 * is decided by the turn's origin (TurnOrigin).
 */
export function isOnLiveCall(
  conversation: { callDirection: string | null; callStatus: string | null; createdAt: Date | string },
  now = Date.now(),
): boolean {
  if (conversation.callDirection === null) return false;
  if (now - new Date(conversation.createdAt).getTime() > LONGEST_CALL_MS) return false;
  return conversation.callStatus === null || ['queued', 'initiated', 'ringing', 'in-progress'].includes(conversation.callStatus);
}

/**
 * Moves a working conversation from `from` to `to` unless someone changed it meanwhile. When a prospect
 * message arrived mid-turn (phase -3) the move goes into resumePhase, except the end phase, which ends the
 * conversation at once. Returns false when an admin or a human changed the conversation.
 */
export async function moveWorkingPhase(
  ctx: AppContext,
  conversationId: number,
  from: number,
  to: number,
  ends: boolean,
  executor?: Executor,
): Promise<boolean> {
  // The move and its webhook events commit together (lib/webhook-outbox.ts).
  if (!executor) return ctx.db.transaction((tx) => moveWorkingPhase(ctx, conversationId, from, to, ends, tx));
  const rows = await executor
    .update(conversations)
    .set(
      ends
        ? { phase: to, resumePhase: null, updatedAt: new Date() }
        : {
            phase: sql`case when ${conversations.phase} = -3 then -3 else ${to}::int end`,
            resumePhase: sql`case when ${conversations.phase} = -3 then ${to}::int else null end`,
            updatedAt: new Date(),
          },
    )
    .where(
      sql`${conversations.id} = ${conversationId} and not ${conversations.aiPaused}
          and (${conversations.phase} = ${from} or (${conversations.phase} = -3 and ${conversations.resumePhase} = ${from}))`,
    )
    .returning({ id: conversations.id });
  if (rows.length === 0) return false;
  await recordConversationEvent(executor, 'conversation.phase_changed', conversationId, { previousPhase: from, newPhase: to, by: 'agent' });
  if (ends) await recordConversationEvent(executor, 'conversation.ended', conversationId, { outcome: 'ended', by: 'agent' });
  return true;
}

/**
 * Sets a non-working phase (-2, -1, 9999) from a turn, unless someone changed the conversation meanwhile or
 * a person took it over (ai_paused); returns whether it did. The screens hear of it once the caller's transaction (`executor`) commits.
 */
export async function leaveWorkingPhase(
  ctx: AppContext,
  loaded: LoadedConversation,
  from: number,
  to: number,
  executor?: Executor,
): Promise<boolean> {
  if (!executor) return ctx.db.transaction((tx) => leaveWorkingPhase(ctx, loaded, from, to, tx));
  const rows = await executor
    .update(conversations)
    .set({ phase: to, resumePhase: null, updatedAt: new Date() })
    // Never on a conversation a person took over (ai_paused): their Take over wins over a turn that fails later.
    .where(sql`${conversations.id} = ${loaded.conversation.id} and not ${conversations.aiPaused} and (${conversations.phase} = ${from} or ${conversations.phase} = -3)`)
    .returning({ id: conversations.id });
  await afterCommit(executor, () => emitConversationChanged(ctx, loaded.conversation));
  if (rows.length === 0) return false;
  const id = loaded.conversation.id;
  await recordConversationEvent(executor, 'conversation.phase_changed', id, { previousPhase: from, newPhase: to, by: 'agent' });
  if (to === PHASE.NEEDS_HUMAN || to === PHASE.ERRORED) await recordConversationEvent(executor, 'conversation.needs_human', id, { reason: to === PHASE.ERRORED ? 'errored' : 'needs_human' });
  if (to === PHASE.IGNORED) await recordConversationEvent(executor, 'conversation.ended', id, { outcome: 'ignored', by: 'agent' });
  return true;
}

export async function setRating(ctx: AppContext, conversationId: number, rating: number, executor?: Executor): Promise<void> {
  await (executor ?? ctx.db).update(conversations).set({ rating, updatedAt: new Date() }).where(eq(conversations.id, conversationId));
}
