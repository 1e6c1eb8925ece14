import { eq, sql } from 'drizzle-orm';
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
    await ctx.db.insert(llmUsage).values({ conversationId, purpose: request.purpose, model: result.model, promptTokens, completionTokens, costUsd });
    await ctx.db
      .update(conversations)
      .set({
        promptTokens: sql`${conversations.promptTokens} + ${promptTokens}`,
        completionTokens: sql`${conversations.completionTokens} + ${completionTokens}`,
        costUsd: sql`${conversations.costUsd} + ${costUsd}`,
      })
      .where(eq(conversations.id, conversationId));
  }
  return result.value;
}
