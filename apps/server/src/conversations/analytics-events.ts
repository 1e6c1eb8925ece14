import { sql } from 'drizzle-orm';
import type { Executor } from '../db/after-commit.ts';
import { followUps, handoffs } from '../db/schema/index.ts';

/**
 * The two analytics events only the application can name (docs/analytics.md "Hand-offs", "Follow-ups"); the
 * answers to them (a person's reply, the prospect coming back) are set by triggers on messages (migration
 * "handoff-follow-up-triggers"), so every write path counts. Both are written in the caller's transaction.
 */

/** Why a conversation went to a person: the agent's error code, or TAKEN_OVER (a person paused the AI). */
export type HandoffReason = 'HUMAN_REQUESTED' | 'NOT_IN_KNOWLEDGE' | 'GUARD_FAILED' | 'NO_LLM' | 'TAKEN_OVER';

/**
 * Opens a hand-off unless one is already waiting for a person (pressing Take over on a conversation the agent
 * handed over is the same hand-off). Dated by the application's clock, like the messages that answer it, or
 * `at` when the event has its channel's time (a Messenger standby message).
 */
export async function openHandoff(db: Executor, conversationId: number, reason: HandoffReason, at: Date = new Date()): Promise<void> {
  await db.execute(sql`
    insert into ${handoffs} (conversation_id, reason, handed_at)
    select ${conversationId}, ${reason}, ${at.toISOString()}::timestamptz
    where not exists (select 1 from ${handoffs} where conversation_id = ${conversationId} and answered_at is null)`);
}

/** A follow-up was sent: its message's time, which the prospect's next message is compared with. */
export async function recordFollowUp(db: Executor, conversationId: number, sentAt: Date): Promise<void> {
  await db.insert(followUps).values({ conversationId, sentAt });
}
