import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { users } from '../db/schema/index.ts';
import { createSession } from '../modules/users/session.service.ts';
import { hashPassword } from '../modules/users/users.service.ts';
import { SESSION_COOKIE } from '../plugins/auth.ts';

let sequence = 0;

export interface TestUser {
  id: number;
  email: string;
  role: 'ADMIN' | 'NORMAL';
  password: string;
  /** A Cookie header value that signs this user in. */
  cookie: string;
}

/** Creates a user and a session for it. Passwords are hashed for real (argon2id), so keep counts small. */
export async function buildUser(
  ctx: AppContext,
  overrides: { email?: string; role?: 'ADMIN' | 'NORMAL'; password?: string | null } = {},
): Promise<TestUser> {
  sequence += 1;
  const email = overrides.email ?? `user${sequence}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const password = overrides.password === undefined ? 'correct-horse-battery' : overrides.password;
  const [user] = await ctx.db
    .insert(users)
    .values({ email, role: overrides.role ?? 'NORMAL', passwordHash: password ? await hashPassword(password) : null })
    .returning();
  const token = await createSession(ctx, user.id);
  return { id: user.id, email, role: user.role, password: password ?? '', cookie: `${SESSION_COOKIE}=${token}` };
}

export const buildAdmin = (ctx: AppContext, overrides: { email?: string } = {}) =>
  buildUser(ctx, { ...overrides, role: 'ADMIN' });

export async function findUserByEmail(ctx: AppContext, email: string) {
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  return user;
}
