import { PHASE } from '@sales-agent/shared/enums';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { conversations, conversationTypes } from '../db/schema/index.ts';
import type { EnqueueOptions, JobDefinition } from '../jobs/runner.ts';
import { agentSettingsOf, type Executor } from '../conversations/conversation-store.ts';
import { runConversationTurn } from './turn.ts';

export const TURN_JOB = 'agent.turn';
export const turnJobKey = (conversationId: number) => `turn:${conversationId}`;

/**
 * Schedules the conversation's turn after the debounce window. A waiting turn is replaced (the window
 * restarts with each message, so a burst is answered once). While a turn is RUNNING its key is taken and
 * enqueue returns null: that turn looks again when it finishes (see the handler below).
 */
export async function scheduleTurn(
  ctx: AppContext,
  conversationId: number,
  debounceSeconds: number,
  executor?: EnqueueOptions['executor'],
): Promise<void> {
  // One statement: a waiting turn is moved to the new time (replace), a running one is left alone. No runAt
  // for a zero window, so the runner is woken at once; otherwise it wakes when the window closes.
  await ctx.jobs.enqueue(
    TURN_JOB,
    { conversationId },
    {
      singletonKey: turnJobKey(conversationId),
      replace: true,
      maxAttempts: 10,
      executor,
      ...(debounceSeconds > 0 ? { runAt: new Date(Date.now() + debounceSeconds * 1000) } : {}),
    },
  );
}

export const turnJob: JobDefinition<z.ZodObject<{ conversationId: z.ZodNumber }>> = {
  name: TURN_JOB,
  payload: z.object({ conversationId: z.number().int().positive() }),
  // A busy conversation (ConversationBusyError) throws: the runner retries after its backoff.
  async handler(ctx, { conversationId }, job) {
    const outcome = await runConversationTurn(ctx, conversationId);
    ctx.log.debug({ conversationId, outcome }, 'agent turn');
    // Free the singleton key, then look: a message stored while this turn ran could not enqueue its own turn
    // (key taken) but left the conversation at -3, so it is seen here. Both in one transaction: a process
    // killed in between leaves this job claimed (it runs again when its lease runs out), never a conversation
    // at -3 with no turn; a failure here is thrown, and the runner retries the job after its backoff.
    await ctx.db.transaction(async (tx) => {
      await ctx.jobs.complete(job, tx);
      await rescheduleIfWaiting(ctx, conversationId, tx);
    });
  },
};

async function rescheduleIfWaiting(ctx: AppContext, conversationId: number, tx: Executor): Promise<void> {
  const [row] = await tx
    .select({ phase: conversations.phase, aiPaused: conversations.aiPaused, typeConfig: conversationTypes.config })
    .from(conversations)
    .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .where(eq(conversations.id, conversationId));
  if (!row || row.aiPaused || row.phase !== PHASE.WAITING) return;
  await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, row.typeConfig).debounceSeconds, tx);
}
