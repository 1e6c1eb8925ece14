import { and, eq, gt, lt, ne } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { sessions, users } from '../../db/schema/index.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { sessionCacheOf } from './session-cache.ts';

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Creates a session and returns the cookie token; only its hash is stored. */
export async function createSession(ctx: AppContext, userId: number): Promise<string> {
  const token = randomToken();
  await ctx.db.insert(sessions).values({
    id: sha256Hex(token),
    userId,
    expiresAt: new Date(Date.now() + SESSION_TTL_MS),
  });
  return token;
}

/**
 * The user a session cookie signs in, or null. Runs on every API request, so a valid session is cached for a
 * few seconds (session-cache.ts); unknown and expired tokens are always asked of the database.
 */
export async function findSessionUser(ctx: AppContext, token: string): Promise<Actor | null> {
  const sessionId = sha256Hex(token);
  const cache = sessionCacheOf(ctx.events);
  const cached = cache.get(sessionId);
  if (cached) return cached;
  const startedAt = cache.begin();
  const [row] = await ctx.db
    .select({ id: users.id, email: users.email, role: users.role, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    // A deactivated user (issue 24) is signed in nowhere, whatever session they still hold.
    .where(and(eq(sessions.id, sessionId), gt(sessions.expiresAt, new Date()), eq(users.active, true)))
    .limit(1);
  if (!row) return null;
  const actor: Actor = { id: row.id, email: row.email, role: row.role };
  cache.set(sessionId, actor, row.expiresAt, startedAt);
  return actor;
}

export async function deleteSession(ctx: AppContext, token: string): Promise<void> {
  await ctx.db.delete(sessions).where(eq(sessions.id, sha256Hex(token)));
  revokeCachedSessions(ctx, 'logout');
}

/**
 * Tells every instance (this one at once, the others through the event bus) to forget the sessions it
 * cached. Call it after the change is committed: a session deleted by logout, a user deleted with theirs.
 */
export function revokeCachedSessions(ctx: AppContext, reason: SessionsRevokedReason): void {
  ctx.events.emit('sessions.revoked', { reason });
}

type SessionsRevokedReason = 'logout' | 'user deleted' | 'password changed' | 'signed out everywhere' | 'role changed' | 'user deactivated';

/**
 * Ends every session of a user but the one whose cookie token is `keepToken` (none kept without it): a password
 * change or reset, a role change, "sign out everywhere". Sessions are rows, so this holds on every instance;
 * their caches are cleared through the event bus.
 */
export async function endUserSessions(ctx: AppContext, userId: number, reason: SessionsRevokedReason, keepToken?: string): Promise<void> {
  const mine = eq(sessions.userId, userId);
  await ctx.db.delete(sessions).where(keepToken ? and(mine, ne(sessions.id, sha256Hex(keepToken))) : mine);
  revokeCachedSessions(ctx, reason);
}

export async function deleteExpiredSessions(ctx: AppContext): Promise<void> {
  await ctx.db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
}
