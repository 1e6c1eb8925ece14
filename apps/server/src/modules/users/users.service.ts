import { hash, verify } from '@node-rs/argon2';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { callRecordings, messagingAccounts, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import type { UserMessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { recordingStorage } from '../call-recordings/call-recordings.service.ts';
import { reconnectNeeded } from '../messaging-accounts/access.ts';
import { revokeCachedSessions } from './session.service.ts';

/** argon2id with the OWASP-recommended minimum cost (19 MiB, 2 passes). */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const hashPassword = (password: string) => hash(password, ARGON2);

// Verifying against a real hash when the email is unknown keeps login time the same either way.
let dummyHash: Promise<string> | null = null;

export async function authenticate(ctx: AppContext, email: string, password: string): Promise<Actor> {
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user?.passwordHash) {
    dummyHash ??= hashPassword('not-a-real-password');
    await verify(await dummyHash, password);
    throw unauthorized('Invalid email or password.');
  }
  if (!(await verify(user.passwordHash, password))) throw unauthorized('Invalid email or password.');
  return { id: user.id, email: user.email, role: user.role };
}

/**
 * Registers an account. The first account on an instance without any ADMIN becomes ADMIN; the advisory
 * lock makes two simultaneous first registrations agree on who that is.
 */
export async function registerUser(ctx: AppContext, email: string, password: string): Promise<Actor> {
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

export type SetPasswordResult = { status: 'provisioning' } | { status: 'done'; actor: Actor };

/**
 * Sets the first password of an account created without one (e.g. by Meta login). While no such
 * account exists yet the answer is "provisioning" (HTTP 202) and the web client retries (spec §4).
 * An account that already has a password is never changed here: that would let anyone take it over.
 */
export async function setFirstPassword(ctx: AppContext, email: string, password: string): Promise<SetPasswordResult> {
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user) return { status: 'provisioning' };
  if (user.passwordHash) throw conflict('This account already has a password. Log in instead.', 'PASSWORD_ALREADY_SET');
  const passwordHash = await hashPassword(password);
  const [updated] = await ctx.db
    .update(users)
    .set({ passwordHash })
    .where(and(eq(users.id, user.id), isNull(users.passwordHash)))
    .returning();
  if (!updated) throw conflict('This account already has a password. Log in instead.', 'PASSWORD_ALREADY_SET');
  return { status: 'done', actor: { id: updated.id, email: updated.email, role: updated.role } };
}

/** Ensures ADMIN_EMAIL exists as ADMIN with ADMIN_PASSWORD (run at start). */
export async function ensureAdmin(ctx: AppContext, email: string, password: string): Promise<void> {
  const normalized = email.trim().toLowerCase();
  const passwordHash = await hashPassword(password);
  await ctx.db
    .insert(users)
    .values({ email: normalized, passwordHash, role: 'ADMIN' })
    .onConflictDoUpdate({ target: users.email, set: { role: 'ADMIN', passwordHash } });
}

/** A user may read and delete only their own profile; an ADMIN any. */
function assertSelfOrAdmin(actor: Actor, email: string, what: string): void {
  if (actor.role !== 'ADMIN' && actor.email !== email) throw forbidden(`You can only ${what} your own account.`);
}

export async function getProfile(ctx: AppContext, actor: Actor, email: string) {
  assertSelfOrAdmin(actor, email, 'view');
  const [user] = await ctx.db
    .select({ id: users.id, email: users.email, role: users.role, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (!user) throw notFound('User not found', 'USER_NOT_FOUND');
  return user;
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
