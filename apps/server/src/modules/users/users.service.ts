import { hash, verify } from '@node-rs/argon2';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { callRecordings, messagingAccounts, passwordTokens, sessions, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { AppError, conflict, forbidden, notFound, unauthorized, unavailable } from '../../lib/errors.ts';
import { mailConfigured, sendMail } from '../../lib/mailer.ts';
import type { UserMessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { reconnectNeeded } from '../messaging-accounts/access.ts';
import { clearAttempts, countAttempt } from './login-throttle.ts';
import { assertPasswordAllowed } from './password-policy.ts';
import { findPasswordToken, issuePasswordToken, setPasswordUrl } from './password-tokens.ts';
import { endUserSessions, revokeCachedSessions } from './session.service.ts';

/** argon2id with the OWASP-recommended minimum cost (19 MiB, 2 passes). */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const hashPassword = (password: string) => hash(password, ARGON2);

// Verifying against a real hash when the email is unknown keeps login time the same either way.
let dummyHash: Promise<string> | null = null;

export async function authenticate(ctx: AppContext, email: string, password: string): Promise<Actor> {
  // Counted per account before the password is checked (login-throttle.ts): 429 while the account is locked.
  await countAttempt(ctx, email);
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user?.passwordHash) {
    dummyHash ??= hashPassword('not-a-real-password');
    await verify(await dummyHash, password);
    throw unauthorized('Invalid email or password.');
  }
  if (!(await verify(user.passwordHash, password))) throw unauthorized('Invalid email or password.');
  if (!user.active) throw unauthorized('This account is deactivated. Ask your admin.');
  await clearAttempts(ctx, email);
  return { id: user.id, email: user.email, role: user.role };
}

/**
 * Registers an account. The first account on an instance without any ADMIN becomes ADMIN; the advisory
 * lock makes two simultaneous first registrations agree on who that is.
 */
export async function registerUser(ctx: AppContext, email: string, password: string): Promise<Actor> {
  assertPasswordAllowed(password, email);
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7261001)`);
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (existing) throw conflict('An account with this email already exists. Log in instead.', 'EMAIL_TAKEN');
    const [{ admins }] = await tx.select({ admins: count() }).from(users).where(eq(users.role, 'ADMIN'));
    const role = admins === 0 ? 'ADMIN' : 'NORMAL';
    const [user] = await tx.insert(users).values({ email, passwordHash, role }).returning();
    return { id: user.id, email: user.email, role: user.role };
  });
}

export type SetPasswordResult = { status: 'provisioning' } | { status: 'done'; actor: Actor; newSession: boolean };

/** The one refusal of set-password without a valid link or the user's own session: the same for every email. */
export const invalidSetPasswordLink = () =>
  new AppError(
    403,
    'INVALID_SET_PASSWORD_LINK',
    'This link to set a password is not valid: it may have expired or been used already. Ask for a new one with "Forgot password?" on the login page.',
  );

/**
 * Set-password (spec §4) proves who is asking: either a one-time link token bound to this email (issued by
 * Facebook login, a forgot-password email or an ADMIN), which sets or resets the password, or the caller's own
 * session, which may set a first password only (a change needs the current one: changePassword). Anything else
 * gets the same 403 whatever the email, before the email is even looked up. A valid token for an account that
 * does not exist yet answers "provisioning" (202) and stays usable, so the page's retries can finish.
 */
export async function setPassword(
  ctx: AppContext,
  input: { email: string; password: string; token?: string; actor: Actor | null; sessionToken?: string },
): Promise<SetPasswordResult> {
  const { email, password } = input;
  const tokenRow = input.token ? await findPasswordToken(ctx, input.token, email) : null;
  const self = input.actor && input.actor.email === email ? input.actor : null;
  if (!tokenRow && !self) throw invalidSetPasswordLink();
  assertPasswordAllowed(password, email);
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user) return { status: 'provisioning' };
  if (!tokenRow) {
    if (user.passwordHash) throw conflict('Your account already has a password. Change it from your profile.', 'PASSWORD_ALREADY_SET');
    const passwordHash = await hashPassword(password);
    const [updated] = await ctx.db.update(users).set({ passwordHash }).where(and(eq(users.id, user.id), isNull(users.passwordHash))).returning();
    if (!updated) throw conflict('Your account already has a password. Change it from your profile.', 'PASSWORD_ALREADY_SET');
    await endUserSessions(ctx, user.id, 'password changed', input.sessionToken);
    return { status: 'done', actor: toActor(updated), newSession: false };
  }
  // A link made for an email before its account existed may only set that account's first password.
  if (tokenRow.userId !== null ? tokenRow.userId !== user.id : user.passwordHash !== null) throw invalidSetPasswordLink();
  const passwordHash = await hashPassword(password);
  const updated = await ctx.db.transaction(async (tx) => {
    // Single use: the row is deleted here, and a second use of the same link (even a concurrent one) finds nothing.
    const [used] = await tx.delete(passwordTokens).where(eq(passwordTokens.id, tokenRow.id)).returning({ id: passwordTokens.id });
    if (!used) return null;
    const [row] = await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id)).returning();
    // Every other link of the account dies with it, and so does every session: whoever knew the old password
    // (or held a session) is out on every instance.
    await tx.delete(passwordTokens).where(eq(passwordTokens.userId, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
    return row;
  });
  if (!updated) throw invalidSetPasswordLink();
  revokeCachedSessions(ctx, 'password changed');
  await clearAttempts(ctx, email);
  return { status: 'done', actor: toActor(updated), newSession: true };
}

const toActor = (user: { id: number; email: string; role: 'ADMIN' | 'NORMAL' }): Actor => ({ id: user.id, email: user.email, role: user.role });

/**
 * Changes the signed-in user's password: the current one is checked (and counted like a login attempt, so a
 * stolen session cannot guess it), the new one must pass the policy, and every other session of the user ends.
 */
export async function changePassword(
  ctx: AppContext,
  actor: Actor,
  input: { currentPassword: string; newPassword: string; sessionToken: string | undefined },
): Promise<void> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, actor.id)).limit(1);
  if (!user) throw unauthorized();
  if (!user.passwordHash) throw conflict('Your account has no password yet. Set one first.', 'NO_PASSWORD');
  await countAttempt(ctx, user.email);
  if (!(await verify(user.passwordHash, input.currentPassword))) {
    throw new AppError(400, 'WRONG_PASSWORD', 'The current password is not correct.');
  }
  await clearAttempts(ctx, user.email);
  assertPasswordAllowed(input.newPassword, user.email);
  const passwordHash = await hashPassword(input.newPassword);
  await ctx.db.update(users).set({ passwordHash }).where(eq(users.id, user.id));
  await ctx.db.delete(passwordTokens).where(eq(passwordTokens.userId, user.id));
  await endUserSessions(ctx, user.id, 'password changed', input.sessionToken);
}

/** Sends a forgot-password email (at most FORGOT_MAILS_PER_HOUR per address) when the account exists; else nothing. */
export const FORGOT_MAILS_PER_HOUR = 3;

/**
 * "Forgot password?": answers at once and the same way for every email; the look-up, the link and the email
 * happen afterwards, so neither the answer nor its timing says whether the account exists. Without SMTP_URL
 * the answer says to ask an administrator (the same for every email).
 */
export function requestPasswordReset(ctx: AppContext, email: string): void {
  if (!mailConfigured(ctx.config)) {
    throw unavailable('Password reset by email is not set up on this server. Ask an administrator for a link to set a new password.', 'EMAIL_NOT_CONFIGURED');
  }
  void sendResetMail(ctx, email).catch((err: unknown) => {
    // Never the SMTP URL (it holds a password) nor the link: the error's code and message only.
    const { code, message } = (err ?? {}) as { code?: string; message?: string };
    ctx.log.warn({ code, reason: message }, 'could not send a forgot-password email');
  });
}

async function sendResetMail(ctx: AppContext, email: string): Promise<void> {
  const [user] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (!user) return;
  const { count: sent } = await ctx.limits.hit(`forgot-mail:${sha256Hex(email)}`, 60 * 60_000);
  if (sent > FORGOT_MAILS_PER_HOUR) {
    ctx.log.info({ userId: user.id }, 'forgot-password email skipped: hourly limit for this account reached');
    return;
  }
  const { token } = await issuePasswordToken(ctx, { email, userId: user.id, purpose: 'FORGOT_PASSWORD' });
  await sendMail(ctx.config, {
    to: email,
    subject: 'Set a new password for Sales Agent',
    text: [
      'Someone (hopefully you) asked to set a new password for your Sales Agent account.',
      '',
      'Open this link within an hour to choose a new password:',
      setPasswordUrl(ctx, email, token),
      '',
      'The link works once. Setting a new password signs you out everywhere else.',
      'If you did not ask for this, ignore this email: your password stays as it is.',
    ].join('\n'),
  });
  ctx.log.info({ userId: user.id }, 'forgot-password email sent');
}

/** An ADMIN's reset link for a user (when no SMTP is set, or the user cannot read their email). */
export async function adminResetLink(ctx: AppContext, admin: Actor, email: string): Promise<{ url: string; expiresAt: string }> {
  const [user] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND');
  const { token, expiresAt } = await issuePasswordToken(ctx, { email, userId: user.id, purpose: 'ADMIN_RESET' });
  ctx.log.info({ adminId: admin.id, userId: user.id }, 'admin issued a set-password link');
  return { url: setPasswordUrl(ctx, email, token), expiresAt: expiresAt.toISOString() };
}

/**
 * Ensures ADMIN_EMAIL exists as ADMIN with ADMIN_PASSWORD (run at start). When that changes the account's role
 * or password, its other sessions end (on every instance); an unchanged account keeps them across restarts.
 */
export async function ensureAdmin(ctx: AppContext, email: string, password: string): Promise<void> {
  const normalized = email.trim().toLowerCase();
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, normalized)).limit(1);
  if (existing?.role === 'ADMIN' && existing.passwordHash && (await verify(existing.passwordHash, password))) return;
  const passwordHash = await hashPassword(password);
  const [row] = await ctx.db
    .insert(users)
    .values({ email: normalized, passwordHash, role: 'ADMIN' })
    .onConflictDoUpdate({ target: users.email, set: { role: 'ADMIN', passwordHash } })
    .returning({ id: users.id });
  if (existing) await endUserSessions(ctx, row.id, existing.role === 'ADMIN' ? 'password changed' : 'role changed');
}

/** A user may read and delete only their own profile; an ADMIN any. */
function assertSelfOrAdmin(actor: Actor, email: string, what: string): void {
  if (actor.role !== 'ADMIN' && actor.email !== email) throw forbidden(`You can only ${what} your own account.`);
}

export async function getProfile(ctx: AppContext, actor: Actor, email: string) {
  assertSelfOrAdmin(actor, email, 'view');
  const [user] = await ctx.db
    .select({ id: users.id, email: users.email, role: users.role, createdAt: users.createdAt, hasPassword: sql<boolean>`${users.passwordHash} is not null` })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND');
  return { ...user, hasPassword: Boolean(user.hasPassword) };
}

/**
 * The accounts granted to a profile's user (spec §7.1), each with whether that user connected it (and so
 * may delete it) and whether it must be connected again. Fields are picked one by one: no token.
 */
export async function listUserMessagingAccounts(ctx: AppContext, actor: Actor, email: string): Promise<UserMessagingAccountView[]> {
  const user = await getProfile(ctx, actor, email);
  const rows = await ctx.db
    .select({
      id: userMessagingAccounts.id,
      messagingAccountId: userMessagingAccounts.messagingAccountId,
      createdByUserId: messagingAccounts.createdByUserId,
      account: {
        id: messagingAccounts.id,
        type: messagingAccounts.type,
        pageId: messagingAccounts.pageId,
        pageName: messagingAccounts.pageName,
        expirationDate: messagingAccounts.expirationDate,
        conversationTypeId: messagingAccounts.conversationTypeId,
        tokenRejectedAt: messagingAccounts.tokenRejectedAt,
      },
    })
    .from(userMessagingAccounts)
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, userMessagingAccounts.messagingAccountId))
    .where(eq(userMessagingAccounts.userId, user.id))
    .orderBy(userMessagingAccounts.id);
  return rows.map(({ account: { tokenRejectedAt, expirationDate, ...account }, createdByUserId, ...rest }) => ({
    ...rest,
    isOwner: createdByUserId === user.id,
    messagingAccount: {
      ...account,
      expirationDate: expirationDate ? expirationDate.toISOString() : null,
      reconnectNeeded: reconnectNeeded({ tokenRejectedAt, expirationDate }),
    },
  }));
}

/**
 * Deletes a user with their sessions, permissions and recordings (rows by cascade, files here, after the
 * commit). The last ADMIN cannot be deleted.
 */
export async function deleteUser(ctx: AppContext, actor: Actor, email: string): Promise<void> {
  assertSelfOrAdmin(actor, email, 'delete');
  const storageKeys = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7261001)`);
    const [user] = await tx.select().from(users).where(eq(users.email, email)).limit(1);
    if (!user) throw notFound('User not found', 'USER_NOT_FOUND');
    if (user.role === 'ADMIN') {
      const [{ admins }] = await tx.select({ admins: count() }).from(users).where(eq(users.role, 'ADMIN'));
      if (admins <= 1) throw new AppError(409, 'LAST_ADMIN', 'The last administrator cannot be deleted.');
    }
    const recordings = await tx.select({ key: callRecordings.storageKey }).from(callRecordings).where(eq(callRecordings.userId, user.id));
    await tx.delete(users).where(eq(users.id, user.id));
    return recordings.map((r) => r.key);
  });
  // Committed: the user's sessions (deleted by cascade) must stop working on every instance now.
  revokeCachedSessions(ctx, 'user deleted');
  const storage = recordingStorage(ctx);
  for (const key of storageKeys) {
    // The account is gone either way; a file that cannot be removed now is logged, not a failed delete.
    await storage.remove(key).catch((err: unknown) => ctx.log.warn({ err, key }, 'could not remove a deleted user\'s recording file'));
  }
}
