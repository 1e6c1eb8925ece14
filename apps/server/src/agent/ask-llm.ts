import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations, llmUsage } from '../db/schema/index.ts';
import { costOf } from './llm/prices.ts';
import type { LlmRequest } from './llm/provider.ts';
import { getLlmProvider } from './llm/select-provider.ts';

/**
 * One LLM call for a conversation: asks the configured provider and books the tokens and cost on the
 * conversation (an llm_usage row plus the running totals on the conversation). Throws LlmError on failure.
 *
 * With `bookings`, the booking is not waited for: it is added to the list (the caller waits for all of them
 * with settleBookings before it finishes), so a turn's next LLM call or its send does not wait for it. Such
 * a booking never rejects; a failure is logged (the reply must not be retried over a cost counter).
 */
export async function askLlm<T>(ctx: AppContext, conversationId: number, request: LlmRequest<T>, bookings?: Promise<void>[]): Promise<T> {
  const result = await getLlmProvider(ctx).complete(request);
  if (result.usage) {
    const booking = bookUsage(ctx, conversationId, request.purpose, result.model, result.usage);
    if (bookings) {
      bookings.push(booking.catch((err) => ctx.log.error({ err, conversationId }, 'booking the LLM usage failed')));
    } else {
      await booking;
    }
  }
  return result.value;
}

/** Waits for the bookings askLlm started, including any added while waiting (none of them rejects). */
export async function settleBookings(bookings: Promise<void>[]): Promise<void> {
  for (let i = 0; i < bookings.length; i += 1) await bookings[i];
}

async function bookUsage(
  ctx: AppContext,
  conversationId: number,
  purpose: string,
  model: string,
  usage: { promptTokens: number; completionTokens: number },
): Promise<void> {
  const { promptTokens, completionTokens } = usage;
  const costUsd = costOf(model, promptTokens, completionTokens);
  // One round trip: the usage row and the conversation's running totals.
  await ctx.db.execute(sql`
    with usage as (
      insert into ${llmUsage} (conversation_id, purpose, model, prompt_tokens, completion_tokens, cost_usd)
      values (${conversationId}, ${purpose}, ${model}, ${promptTokens}, ${completionTokens}, ${costUsd})
    )
    update ${conversations} set prompt_tokens = prompt_tokens + ${promptTokens},
      completion_tokens = completion_tokens + ${completionTokens}, cost_usd = cost_usd + ${costUsd}
    where id = ${conversationId}`);
}
