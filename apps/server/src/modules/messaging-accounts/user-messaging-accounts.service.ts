import { asc, eq } from 'drizzle-orm';
import type { PermissionCreateBody, PermissionView } from '@sales-agent/shared/schemas/messaging-account';
import type { AppContext } from '../../context.ts';
import { messagingAccounts, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../lib/errors.ts';

/** Every user-to-account permission (spec §2.10 list), oldest first. */
export async function listPermissions(ctx: AppContext): Promise<PermissionView[]> {
  const rows = await ctx.db
    .select({
      id: userMessagingAccounts.id,
      email: users.email,
      messagingAccountId: userMessagingAccounts.messagingAccountId,
      pageName: messagingAccounts.pageName,
    })
    .from(userMessagingAccounts)
    .innerJoin(users, eq(users.id, userMessagingAccounts.userId))
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, userMessagingAccounts.messagingAccountId))
    .orderBy(asc(userMessagingAccounts.id));
  return rows.map((r) => ({
    id: r.id,
    user: { email: r.email },
    messagingAccountId: r.messagingAccountId,
    messagingAccount: { pageName: r.pageName },
  }));
}

/** Grants a user access to an account's conversations (spec §2.10 create). */
export async function grantPermission(ctx: AppContext, input: PermissionCreateBody): Promise<{ id: number; pageName: string }> {
  const [user] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, input.userEmail)).limit(1);
  if (!user) throw notFound(`No user with email ${input.userEmail}. The user must register first.`, 'USER_NOT_FOUND');
  const [account] = await ctx.db
    .select({ id: messagingAccounts.id, pageName: messagingAccounts.pageName })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, input.messagingAccountId))
    .limit(1);
  if (!account) throw notFound('Messaging account not found', 'MESSAGING_ACCOUNT_NOT_FOUND');
  const [created] = await ctx.db
    .insert(userMessagingAccounts)
    .values({ userId: user.id, messagingAccountId: account.id })
    .onConflictDoNothing()
    .returning({ id: userMessagingAccounts.id });
  if (!created) throw conflict(`${input.userEmail} already has access to ${account.pageName}.`, 'PERMISSION_EXISTS');
  // The user's open inbox streams start passing this account's events on (issue 18).
  ctx.events.emit('grants.changed', { userId: user.id });
  return { id: created.id, pageName: account.pageName };
}

export async function revokePermission(ctx: AppContext, id: number): Promise<void> {
  const [deleted] = await ctx.db
    .delete(userMessagingAccounts)
    .where(eq(userMessagingAccounts.id, id))
    .returning({ id: userMessagingAccounts.id, userId: userMessagingAccounts.userId });
  if (!deleted) throw notFound('User messaging account not found', 'PERMISSION_NOT_FOUND');
  // The user's open inbox streams stop passing this account's events on (issue 18).
  ctx.events.emit('grants.changed', { userId: deleted.userId });
}
