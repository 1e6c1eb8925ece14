import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import {
  conversationPhases,
  conversations,
  conversationTypes,
  messages,
  messagingAccounts,
  prospects,
  unansweredConversations,
  userMessagingAccounts,
} from '../db/schema/index.ts';

let sequence = 0;
const next = () => ++sequence;

/** A conversation type with `phases` phases (prompts "Phase i goal …"). */
export async function buildConversationType(
  ctx: AppContext,
  overrides: { title?: string; phases?: number; initialMessage?: string | null } = {},
) {
  const n = next();
  const [type] = await ctx.db
    .insert(conversationTypes)
    .values({
      title: overrides.title ?? `Type ${n}`,
      rolePrompt: 'You sell test widgets.',
      errorPrompt: 'Sorry, something went wrong.',
      initialMessage: overrides.initialMessage === undefined ? 'Hello! How can I help?' : overrides.initialMessage,
    })
    .returning();
  const phaseCount = overrides.phases ?? 2;
  if (phaseCount > 0) {
    await ctx.db.insert(conversationPhases).values(
      Array.from({ length: phaseCount }, (_, index) => ({
        conversationTypeId: type.id,
        index,
        prompt: `Phase ${index} goal of type ${n}`,
        transitionPrompt: `Move on after phase ${index}`,
        followUpPrompt: `Nudge in phase ${index}`,
      })),
    );
  }
  return type;
}

export async function buildMessagingAccount(ctx: AppContext, overrides: { pageName?: string } = {}) {
  const n = next();
  const [account] = await ctx.db
    .insert(messagingAccounts)
    .values({
      type: 'INSTAGRAM',
      accessTokenEncrypted: ctx.secrets.seal(`token-${n}`),
      pageId: `page-${n}`,
      pageName: overrides.pageName ?? `Page ${n}`,
    })
    .returning();
  return account;
}

/** Grants a NORMAL user the conversations of an account (user_messaging_accounts). */
export async function grantAccount(ctx: AppContext, userId: number, messagingAccountId: number) {
  await ctx.db.insert(userMessagingAccounts).values({ userId, messagingAccountId });
}

export async function buildProspect(ctx: AppContext, messagingAccountId: number) {
  const [prospect] = await ctx.db
    .insert(prospects)
    .values({ messagingAccountId, externalId: `ext-${next()}` })
    .returning();
  return prospect;
}

export interface ConversationSeed {
  conversationTypeId?: number | null;
  prospectId?: number | null;
  phase?: number;
  rating?: number | null;
  recordingDuration?: number | null;
  recordingUrl?: string | null;
  createdAt?: Date;
  /** Messages to store, oldest first; lastMessageDate and messagesCount follow them. */
  messages?: { role: 'SYSTEM' | 'PROSPECT' | 'AGENT'; message: string; dateSent: Date }[];
}

/** A conversation inserted directly (no agent), with its messages and consistent counters. */
export async function buildConversation(ctx: AppContext, seed: ConversationSeed = {}) {
  const msgs = seed.messages ?? [];
  const [conversation] = await ctx.db
    .insert(conversations)
    .values({
      conversationTypeId: seed.conversationTypeId ?? null,
      prospectId: seed.prospectId ?? null,
      // A prospect conversation carries its prospect's account (conversations.messagingAccountId).
      messagingAccountId:
        seed.prospectId == null ? null : sql<number>`(select ${prospects.messagingAccountId} from ${prospects} where ${prospects.id} = ${seed.prospectId})`,
      phase: seed.phase ?? 0,
      rating: seed.rating ?? null,
      recordingDuration: seed.recordingDuration ?? null,
      recordingUrl: seed.recordingUrl ?? null,
      createdAt: seed.createdAt ?? new Date(),
      messagesCount: msgs.length,
      lastMessageDate: msgs.length ? msgs[msgs.length - 1].dateSent : null,
    })
    .returning();
  const stored = msgs.length
    ? await ctx.db
        .insert(messages)
        .values(msgs.map((m) => ({ ...m, conversationId: conversation.id })))
        .returning()
    : [];
  return { ...conversation, messages: stored };
}

export async function buildUnanswered(
  ctx: AppContext,
  conversationId: number,
  overrides: { status?: 'ACTIVE' | 'INACTIVE'; errors?: string; followUpCount?: number; earliestReplyDateTime?: Date } = {},
) {
  const [row] = await ctx.db
    .insert(unansweredConversations)
    .values({
      conversationId,
      status: overrides.status ?? 'ACTIVE',
      errors: overrides.errors ?? '[]',
      followUpCount: overrides.followUpCount ?? 0,
      earliestReplyDateTime: overrides.earliestReplyDateTime ?? new Date(),
    })
    .returning();
  return row;
}

export interface AccountConversationSeed {
  /** The account's channel (INSTAGRAM when not given). */
  type?: 'SMS_GATEWAY' | 'WHATSAPP' | 'INSTAGRAM';
  /** The prospect's address on the channel (a phone number for SMS and WhatsApp); a fresh one when not given. */
  externalId?: string;
  name?: string;
  /** The prospect's one message (at minute 1). */
  text?: string;
  /** NORMAL users granted the account. */
  grant?: number[];
}

/** A prospect of a new account (granted to `grant`) with one conversation of a 2-phase type opened by its message. */
export async function buildAccountConversation(ctx: AppContext, seed: AccountConversationSeed = {}) {
  const account = await buildMessagingAccount(ctx);
  if (seed.type) await ctx.db.update(messagingAccounts).set({ type: seed.type }).where(eq(messagingAccounts.id, account.id));
  const prospect = await buildProspect(ctx, account.id);
  if (seed.externalId || seed.name) {
    await ctx.db
      .update(prospects)
      .set({ externalId: seed.externalId ?? prospect.externalId, name: seed.name ?? null })
      .where(eq(prospects.id, prospect.id));
  }
  for (const userId of seed.grant ?? []) await grantAccount(ctx, userId, account.id);
  const type = await buildConversationType(ctx, { phases: 2 });
  const conversation = await buildConversation(ctx, {
    conversationTypeId: type.id,
    prospectId: prospect.id,
    messages: [{ role: 'PROSPECT', message: seed.text ?? 'Hello there', dateSent: at(1) }],
  });
  return { account, prospect, conversation };
}

/** Minutes after a fixed origin, for predictable orderings. */
export const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 0, minutes));
