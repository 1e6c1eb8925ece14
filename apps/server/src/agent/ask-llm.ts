import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations, llmUsage } from '../db/schema/index.ts';
import { recordLlmCall } from '../lib/metrics.ts';
import { costOf } from './llm/prices.ts';
import type { LlmRequest } from './llm/provider.ts';
import { getLlmProvider } from './llm/select-provider.ts';

/**
 * One LLM call for a conversation: asks the configured provider and books the tokens and cost on the
 * conversation (an llm_usage row plus the running totals on the conversation). Throws LlmError on failure.
 *
 * With `deferred`, the booking is not written now but added to that list: the turn writes the list with
 * bookDeferred after its reply is sent (still under the conversation lock), so the booking's update of the
 * conversation row neither delays the next LLM call nor competes with the send for the row lock.
 */
export async function askLlm<T>(ctx: AppContext, conversationId: number, request: LlmRequest<T>, deferred?: DeferredUsage[]): Promise<T> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const result = await getLlmProvider(ctx)
    .complete(request)
    .catch((err: unknown) => {
      recordLlmCall({ purpose: request.purpose, model: ctx.config.LLM_MODEL, seconds: seconds(), outcome: 'error' });
      throw err;
    });
  recordLlmCall({
    purpose: request.purpose,
    model: result.model,
    seconds: seconds(),
    outcome: 'ok',
    ...result.usage,
    costUsd: result.usage ? costOf(result.model, result.usage.promptTokens, result.usage.completionTokens) : undefined,
  });
  if (result.usage) {
    const usage = { purpose: request.purpose, model: result.model, ...result.usage };
    if (deferred) deferred.push(usage);
    else await bookUsage(ctx, conversationId, [usage]);
  }
  return result.value;
}

export interface DeferredUsage {
  purpose: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
}

/** Writes deferred bookings (one statement); a failure is logged, never fails the turn (its reply is out). */
export async function bookDeferred(ctx: AppContext, conversationId: number, deferred: DeferredUsage[]): Promise<void> {
  if (deferred.length === 0) return;
  try {
    await bookUsage(ctx, conversationId, deferred.splice(0));
  } catch (err) {
    ctx.log.error({ err, conversationId }, 'booking the LLM usage failed');
  }
}

async function bookUsage(ctx: AppContext, conversationId: number, usages: DeferredUsage[]): Promise<void> {
  const rows = usages.map((u) => ({ ...u, costUsd: costOf(u.model, u.promptTokens, u.completionTokens) }));
  const sum = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((total, r) => total + pick(r), 0);
  // One round trip: the usage rows and the conversation's running totals.
  await ctx.db.execute(sql`
    with usage as (
      insert into ${llmUsage} (conversation_id, purpose, model, prompt_tokens, completion_tokens, cost_usd)
      values ${sql.join(
        rows.map((r) => sql`(${conversationId}, ${r.purpose}, ${r.model}, ${r.promptTokens}, ${r.completionTokens}, ${r.costUsd})`),
        sql`, `,
      )}
    )
    update ${conversations} set prompt_tokens = prompt_tokens + ${sum((r) => r.promptTokens)},
      completion_tokens = completion_tokens + ${sum((r) => r.completionTokens)}, cost_usd = cost_usd + ${sum((r) => r.costUsd)}
    where id = ${conversationId}`);
}
