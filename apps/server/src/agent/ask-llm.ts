import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations, llmUsage } from '../db/schema/index.ts';
import { costOf } from './llm/prices.ts';
import type { LlmRequest } from './llm/provider.ts';
import { getLlmProvider } from './llm/select-provider.ts';

/**
 * One LLM call for a conversation: asks the configured provider and books the tokens and cost on the
 * conversation (an llm_usage row plus the running totals on the conversation). Throws LlmError on failure.
 */
export async function askLlm<T>(ctx: AppContext, conversationId: number, request: LlmRequest<T>): Promise<T> {
  const result = await getLlmProvider(ctx).complete(request);
  if (result.usage) {
    const { promptTokens, completionTokens } = result.usage;
    const costUsd = costOf(result.model, promptTokens, completionTokens);
    // One round trip: the usage row and the conversation's running totals.
    await ctx.db.execute(sql`
      with usage as (
        insert into ${llmUsage} (conversation_id, purpose, model, prompt_tokens, completion_tokens, cost_usd)
        values (${conversationId}, ${request.purpose}, ${result.model}, ${promptTokens}, ${completionTokens}, ${costUsd})
      )
      update ${conversations} set prompt_tokens = prompt_tokens + ${promptTokens},
        completion_tokens = completion_tokens + ${completionTokens}, cost_usd = cost_usd + ${costUsd}
      where id = ${conversationId}`);
  }
  return result.value;
}
