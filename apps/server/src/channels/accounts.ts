import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { messagingAccounts } from '../db/schema/index.ts';
import type { ChannelAccount, ChannelEndpoints, ChannelType } from './types.ts';

/** A messaging account as the channel code needs it: token opened, config parsed, its playbook. */
export interface LiveAccount extends ChannelAccount {
  pageName: string;
  conversationTypeId: number | null;
}

type AccountRow = typeof messagingAccounts.$inferSelect;

function toLiveAccount(ctx: AppContext, row: AccountRow): LiveAccount {
  let config: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.config || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
  } catch {
    // The admin form refuses invalid JSON; an unreadable config behaves as an empty one.
  }
  return {
    id: row.id,
    type: row.type,
    pageId: row.pageId,
    pageName: row.pageName,
    accessToken: ctx.secrets.open(row.accessTokenEncrypted),
    config,
    conversationTypeId: row.conversationTypeId,
  };
}

/** The account a provider addressed (Meta page / IG account / phone_number_id, Twilio number, device id). */
export async function findAccountByKey(ctx: AppContext, type: ChannelType, pageId: string): Promise<LiveAccount | null> {
  const [row] = await ctx.db
    .select()
    .from(messagingAccounts)
    // At most one row: (type, pageId) is unique (migration 0008), and reconnecting updates the account in place.
    .where(and(eq(messagingAccounts.type, type), eq(messagingAccounts.pageId, pageId)))
    .limit(1);
  return row ? toLiveAccount(ctx, row) : null;
}

export async function findAccountById(ctx: AppContext, id: number): Promise<LiveAccount | null> {
  const [row] = await ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, id)).limit(1);
  return row ? toLiveAccount(ctx, row) : null;
}

export function endpointsOf(ctx: AppContext): ChannelEndpoints {
  const { META_GRAPH_URL, META_GRAPH_VERSION, INSTAGRAM_GRAPH_URL, TWILIO_API_URL } = ctx.config;
  // These three have defaults in config/env.ts; its url() helper's type just cannot say so.
  return {
    META_GRAPH_URL: META_GRAPH_URL!,
    META_GRAPH_VERSION,
    INSTAGRAM_GRAPH_URL: INSTAGRAM_GRAPH_URL!,
    TWILIO_API_URL: TWILIO_API_URL!,
    PUBLIC_URL: ctx.config.PUBLIC_URL,
    ALLOW_PRIVATE_URLS: ctx.config.ALLOW_PRIVATE_URLS,
  };
}

/**
 * Records that Meta rejected an account's token (error code 190). Screens then show "reconnect needed"
 * until a new token is stored (connect again, or an ADMIN saves one). For the refresh job and the senders.
 */
export async function flagTokenRejected(ctx: AppContext, accountId: number, at = new Date()): Promise<void> {
  await ctx.db.update(messagingAccounts).set({ tokenRejectedAt: at }).where(eq(messagingAccounts.id, accountId));
}
