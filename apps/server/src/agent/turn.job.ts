import { PHASE } from '@sales-agent/shared/enums';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import type { EnqueueOptions, JobDefinition } from '../jobs/runner.ts';
import { agentSettingsOf, loadConversation } from './conversation-store.ts';
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
    // Free the singleton key first, then look: a message stored while this turn ran could not enqueue its
    // own turn (key taken) but left the conversation at -3, so it is seen here.
    await ctx.jobs.complete(job.id);
    try {
      await rescheduleIfWaiting(ctx, conversationId);
    } catch (err) {
      ctx.log.error({ err, conversationId }, 'could not schedule the next turn');
    }
  },
};

async function rescheduleIfWaiting(ctx: AppContext, conversationId: number): Promise<void> {
  const [row] = await ctx.db
    .select({ phase: conversations.phase, aiPaused: conversations.aiPaused })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  if (!row || row.aiPaused || row.phase !== PHASE.WAITING) return;
  const loaded = await loadConversation(ctx, conversationId);
  await scheduleTurn(ctx, conversationId, agentSettingsOf(ctx, loaded?.type?.config).debounceSeconds);
}
