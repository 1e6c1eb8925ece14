import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { conversations, conversationTypes } from '../db/schema/index.ts';
import { findAccountById, type LiveAccount } from '../channels/accounts.ts';

/**
 * A call as every voice callback needs it: the conversation row, its playbook and the TWILIO account the call
 * runs on (its Auth Token verifies the callback's signature; its accountSid reaches the REST API).
 */
export interface CallContext {
  conversation: typeof conversations.$inferSelect;
  type: typeof conversationTypes.$inferSelect | null;
  account: LiveAccount;
}

async function loadBy(ctx: AppContext, where: ReturnType<typeof eq>): Promise<CallContext | null> {
  const [row] = await ctx.db
    .select({ conversation: conversations, type: conversationTypes })
    .from(conversations)
    .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .where(where)
    .limit(1);
  // Only conversations that are calls, on a (still existing) TWILIO account, answer callbacks.
  if (!row || !row.conversation.callDirection || row.conversation.messagingAccountId === null) return null;
  const account = await findAccountById(ctx, row.conversation.messagingAccountId);
  if (!account || account.type !== 'TWILIO') return null;
  return { conversation: row.conversation, type: row.type, account };
}

export const loadCallByUuid = (ctx: AppContext, uuid: string) => loadBy(ctx, eq(conversations.uuid, uuid));
export const loadCallBySid = (ctx: AppContext, callSid: string) => loadBy(ctx, eq(conversations.callSid, callSid));

/** Stores the CallSid Twilio reports for a call that has none yet (the first one stays). */
export async function rememberCallSid(ctx: AppContext, conversationId: number, callSid: string): Promise<void> {
  await ctx.db
    .update(conversations)
    .set({ callSid })
    .where(and(eq(conversations.id, conversationId), isNull(conversations.callSid)));
}

/** The account's AccountSid (config.accountSid of the channels mapping), or null when not set. */
export function accountSidOf(account: LiveAccount): string | null {
  const sid = account.config.accountSid;
  return typeof sid === 'string' && sid.trim() ? sid.trim() : null;
}
