import { and, asc, eq, ne, count } from 'drizzle-orm';
import type { InviteUserResponse, PatchUserBody, TeamUser } from '@sales-agent/shared/schemas/user';
import type { Actor, AppContext } from '../../context.ts';
import { userMessagingAccounts, users } from '../../db/schema/index.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { mailConfigured, sendMail } from '../../lib/mailer.ts';
import { issuePasswordToken, setPasswordUrl } from './password-tokens.ts';
import { endUserSessions } from './session.service.ts';

/**
 * Team management (issue 24, docs/workspace.md): an ADMIN lists the users, invites one by email (a one-time
 * link to set a password, mailed through SMTP_URL when set, else shown to copy), changes roles and
 * deactivates (every session ends at once; the account stays for history and can be activated again).
 */

async function grantsOf(ctx: AppContext): Promise<Map<number, number[]>> {
  const rows = await ctx.db
    .select({ userId: userMessagingAccounts.userId, accountId: userMessagingAccounts.messagingAccountId })
    .from(userMessagingAccounts)
    .orderBy(asc(userMessagingAccounts.messagingAccountId));
  const byUser = new Map<number, number[]>();
  for (const r of rows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.accountId]);
  return byUser;
}

function present(row: typeof users.$inferSelect, grants: Map<number, number[]>): TeamUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    active: row.active,
    pending: row.passwordHash === null,
    createdAt: row.createdAt.toISOString(),
    messagingAccountIds: grants.get(row.id) ?? [],
  };
}

export async function listTeam(ctx: AppContext): Promise<TeamUser[]> {
  const [rows, grants] = await Promise.all([ctx.db.select().from(users).orderBy(asc(users.email)), grantsOf(ctx)]);
  return rows.map((row) => present(row, grants));
}

/**
 * Invites `email` with `role`: the account is created without a password (or an invited one not yet used gets
 * a new link) and a one-time set-password link is issued. 409 when the email already has a password.
 */
export async function inviteUser(ctx: AppContext, admin: Actor, email: string, role: 'ADMIN' | 'NORMAL'): Promise<InviteUserResponse> {
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (existing?.passwordHash) throw conflict(`${email} already has an account.`, 'EMAIL_TAKEN');
  const [user] = existing
    ? await ctx.db.update(users).set({ role, active: true }).where(eq(users.id, existing.id)).returning()
    : await ctx.db.insert(users).values({ email, role, passwordHash: null }).returning();
  const { token } = await issuePasswordToken(ctx, { email, userId: user.id, purpose: 'INVITATION' });
  const link = setPasswordUrl(ctx, email, token);
  let mailed = false;
  if (mailConfigured(ctx.config)) {
    try {
      await sendMail(ctx.config, {
        to: email,
        subject: 'You are invited to Sales Agent',
        text: [
          `${admin.email} invited you to the team on Sales Agent.`,
          '',
          'Open this link within 7 days to choose your password and sign in:',
          link,
          '',
          'The link works once.',
        ].join('\n'),
      });
      mailed = true;
    } catch (err) {
      const { code, message } = (err ?? {}) as { code?: string; message?: string };
      ctx.log.warn({ code, reason: message }, 'could not send an invitation email');
    }
  }
  ctx.log.info({ adminId: admin.id, userId: user.id, mailed }, 'user invited');
  return {
    link,
    mailed,
    message: mailed
      ? `Invitation sent to ${email}. The link works once, for 7 days.`
      : `Invitation for ${email} created. Copy the link and send it to them: it works once, for 7 days.`,
    user: present(user, await grantsOf(ctx)),
  };
}

/** Changes a user's role or activity. An ADMIN cannot demote or deactivate themselves (the last ADMIN stays). */
export async function patchUser(ctx: AppContext, admin: Actor, id: number, body: PatchUserBody): Promise<TeamUser> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, id)).limit(1);
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND');
  if (user.id === admin.id && (body.active === false || body.role === 'NORMAL')) {
    throw new AppError(409, 'CANNOT_CHANGE_SELF', 'You cannot deactivate yourself or remove your own administrator role. Ask another admin.');
  }
  if (user.role === 'ADMIN' && (body.active === false || body.role === 'NORMAL')) {
    const [{ n }] = await ctx.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, 'ADMIN'), eq(users.active, true), ne(users.id, user.id)));
    if (n === 0) throw new AppError(409, 'CANNOT_CHANGE_SELF', 'This is the last active administrator.');
  }
  const [updated] = await ctx.db
    .update(users)
    .set({ ...(body.role !== undefined ? { role: body.role } : {}), ...(body.active !== undefined ? { active: body.active } : {}) })
    .where(eq(users.id, id))
    .returning();
  // Deactivated: out everywhere at once. A new role: sessions start again with it.
  if (body.active === false && user.active) await endUserSessions(ctx, id, 'user deactivated');
  else if (body.role !== undefined && body.role !== user.role) await endUserSessions(ctx, id, 'role changed');
  if (body.active === false) ctx.events.emit('grants.changed', { userId: id });
  return present(updated, await grantsOf(ctx));
}
