import { and, eq } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { messagingAccounts, userMessagingAccounts } from '../../db/schema/index.ts';

/**
 * Which messaging accounts an actor may work with (DESIGN.md §5): an ADMIN all of them, a NORMAL user
 * those granted through user_messaging_accounts. Other modules (conversations, unanswered, channels) use
 * these to filter and authorize; a numeric id never grants access by itself.
 */
export async function grantedAccountIds(ctx: AppContext, actor: Actor): Promise<number[] | 'all'> {
  if (actor.role === 'ADMIN') return 'all';
  const rows = await ctx.db
    .select({ id: userMessagingAccounts.messagingAccountId })
    .from(userMessagingAccounts)
    .where(eq(userMessagingAccounts.userId, actor.id))
    .orderBy(userMessagingAccounts.messagingAccountId);
  return rows.map((row) => row.id);
}

/** True when `actor` may see and change the account `accountId` (ADMIN, or a NORMAL user granted it). */
export async function canAccessAccount(ctx: AppContext, actor: Actor, accountId: number): Promise<boolean> {
  if (actor.role === 'ADMIN') return true;
  const [grant] = await ctx.db
    .select({ id: userMessagingAccounts.id })
    .from(userMessagingAccounts)
    .where(and(eq(userMessagingAccounts.userId, actor.id), eq(userMessagingAccounts.messagingAccountId, accountId)))
    .limit(1);
  return Boolean(grant);
}

/**
 * The account's access token in clear, for channel code that calls the provider. Tokens are sealed at rest
 * (lib/crypto.ts); this is the one place that opens them. Throws when the token cannot be opened (e.g.
 * APP_SECRET changed since it was stored).
 */
export function readAccessToken(ctx: AppContext, account: { accessTokenEncrypted: string }): string {
  return ctx.secrets.open(account.accessTokenEncrypted);
}

/**
 * True when `actor` may delete the account (issue 13 item 3): an ADMIN, or the user who connected or
 * created it. A user who was only granted it may remove their own grant, not the account that other
 * granted users' conversations live on.
 */
export function canDeleteAccount(actor: Actor, account: { createdByUserId: number | null }): boolean {
  return actor.role === 'ADMIN' || (account.createdByUserId !== null && account.createdByUserId === actor.id);
}

/** The account must be connected again: Meta rejected its token, or the token's expiry has passed. */
export function reconnectNeeded(account: { tokenRejectedAt: Date | null; expirationDate: Date | null }, now = Date.now()): boolean {
  return account.tokenRejectedAt !== null || (account.expirationDate !== null && account.expirationDate.getTime() <= now);
}

// Lives with the channel code (a send answered with 190 flags too); modules import it from here as before.
export { flagTokenRejected } from '../../channels/accounts.ts';
