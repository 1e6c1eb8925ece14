import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import {
  conversationPhases,
  conversations,
  conversationTypes,
  jobs,
  messages,
  outbox,
  unansweredConversations,
} from '../db/schema/index.ts';
import { buildMessagingAccount, buildProspect } from './conversation-factories.ts';

export interface PlaybookSeed {
  phases?: number;
  config?: Record<string, unknown>;
  rolePrompt?: string;
  triggerConversationPrompt?: string | null;
  checkingPrompt?: string | null;
  errorPrompt?: string;
  initialMessage?: string | null;
  followUpPrompt?: string | null;
}

/** A conversation type for agent scenarios: debounce 0 unless the config says otherwise. */
export async function buildPlaybook(ctx: AppContext, seed: PlaybookSeed = {}) {
  const [type] = await ctx.db
    .insert(conversationTypes)
    .values({
      title: 'Widgets playbook',
      rolePrompt: seed.rolePrompt ?? 'You are Sam, who sells widgets. Be brief.',
      triggerConversationPrompt: seed.triggerConversationPrompt ?? null,
      checkingPrompt: seed.checkingPrompt ?? null,
      errorPrompt: seed.errorPrompt ?? 'Sorry, I am having trouble right now. A colleague will get back to you.',
      initialMessage: seed.initialMessage === undefined ? 'Hi! Interested in widgets?' : seed.initialMessage,
      config: JSON.stringify({ replyDebounceSeconds: 0, ...seed.config }),
    })
    .returning();
  const count = seed.phases ?? 3;
  if (count > 0) {
    await ctx.db.insert(conversationPhases).values(
      Array.from({ length: count }, (_, index) => ({
        conversationTypeId: type.id,
        index,
        prompt: `Goal ${index}: learn what the prospect needs. Then more.`,
        transitionPrompt: `The prospect answered question ${index}.`,
        followUpPrompt: seed.followUpPrompt === undefined ? `Remind them about question ${index}.` : seed.followUpPrompt,
      })),
    );
  }
  return type;
}

/** An inbound channel conversation (a prospect on an Instagram account) of a type, with no messages yet. */
export async function buildProspectConversation(ctx: AppContext, conversationTypeId: number, phase = 0) {
  const account = await buildMessagingAccount(ctx);
  const prospect = await buildProspect(ctx, account.id);
  const [conversation] = await ctx.db.insert(conversations).values({ conversationTypeId, prospectId: prospect.id, messagingAccountId: account.id, phase }).returning();
  return { conversation, prospect, account };
}

export async function conversationRow(ctx: AppContext, id: number) {
  const [row] = await ctx.db.select().from(conversations).where(eq(conversations.id, id));
  return row;
}

export async function messagesOf(ctx: AppContext, id: number) {
  return ctx.db
    .select({ id: messages.id, role: messages.role, message: messages.message, writtenByHuman: messages.writtenByHuman })
    .from(messages)
    .where(eq(messages.conversationId, id))
    .orderBy(messages.id);
}

export async function agentMessagesOf(ctx: AppContext, id: number) {
  return (await messagesOf(ctx, id)).filter((m) => m.role === 'AGENT').map((m) => m.message);
}

export async function outboxOf(ctx: AppContext, id: number) {
  return ctx.db.select().from(outbox).where(eq(outbox.conversationId, id)).orderBy(outbox.id);
}

export async function unansweredOf(ctx: AppContext, id: number) {
  const [row] = await ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.conversationId, id));
  return row;
}

export async function pendingJobs(ctx: AppContext, singletonKey: string) {
  return ctx.db.select().from(jobs).where(and(eq(jobs.singletonKey, singletonKey), eq(jobs.status, 'pending')));
}

/** Lets the follow-up delay pass: the entry and its waiting job become due now. */
export async function makeFollowUpDue(ctx: AppContext, conversationId: number) {
  const past = new Date(Date.now() - 1000);
  await ctx.db.update(unansweredConversations).set({ earliestReplyDateTime: past }).where(eq(unansweredConversations.conversationId, conversationId));
  await ctx.db
    .update(jobs)
    .set({ runAt: past })
    .where(and(eq(jobs.singletonKey, `follow-up:${conversationId}`), eq(jobs.status, 'pending')));
}
