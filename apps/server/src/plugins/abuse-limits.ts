import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { AppError } from '../lib/errors.ts';

/**
 * Who a limit counts: the signed-in user, otherwise the client address. Counting users by id means a
 * self-registered account is limited like everyone else (it used to be exempt), and many people behind one
 * office address do not share one budget.
 */
export function identityKey(request: FastifyRequest): string {
  return request.actor ? `user:${request.actor.id}` : `ip:${request.ip}`;
}

/** Route config for the chat calls that drive LLM cost: CHAT_RATE_LIMIT per identity per minute. */
export function chatRateLimit(ctx: AppContext) {
  return { rateLimit: { max: ctx.config.CHAT_RATE_LIMIT, timeWindow: '1 minute', keyGenerator: identityKey } };
}

const HOUR_MS = 60 * 60_000;

/**
 * Counts one message written into a conversation, whoever writes it; beyond CHAT_CONVERSATION_LIMIT an hour
 * the conversation refuses more (429) until the window ends. Shared by every instance on PostgreSQL.
 */
export async function countConversationMessage(ctx: AppContext, conversationUuid: string): Promise<void> {
  const state = await ctx.limits.hit(`chat-conversation:${conversationUuid}`, HOUR_MS);
  if (state.count > ctx.config.CHAT_CONVERSATION_LIMIT) {
    const minutes = Math.max(1, Math.ceil(state.ttlMs / 60_000));
    throw new AppError(
      429,
      'CONVERSATION_RATE_LIMITED',
      `This conversation has received too many messages. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
    );
  }
}
