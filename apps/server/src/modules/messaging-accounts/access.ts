import { and, eq } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { userMessagingAccounts } from '../../db/schema/index.ts';

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
