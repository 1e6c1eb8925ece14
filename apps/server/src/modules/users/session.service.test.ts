import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import { openDatabase } from '../../db/client.ts';
import { sessions } from '../../db/schema/index.ts';
import type { PgEventBus } from '../../lib/events.ts';
import { type TestApp, testConfig } from '../../test/build-test-app.ts';
import { useTestApp } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser, type TestUser } from '../../test/factories.ts';
import { openTestDatabase } from '../../test/test-database.ts';
import { SESSION_CACHE_TTL_MS } from './session-cache.ts';
import { createSession, findSessionUser } from './session.service.ts';

/** The token of a `sa_session=<token>` cookie. */
const tokenOf = (user: TestUser) => user.cookie.split('=')[1];
const getSession = (t: { request: TestApp['request'] }, user: TestUser) => t.request({ method: 'POST', url: '/api/user/get-session', as: user.cookie });

describe('session cache on one instance', () => {
  const t = useTestApp();
  beforeAll(async () => {
    await buildAdmin(t.ctx); // so deleting the users below never meets the last-administrator rule
  });
  afterEach(() => vi.useRealTimers());

  it('refuses a logged-out cookie at once, though it was cached a moment before', async () => {
    const user = await buildUser(t.ctx);
    expect((await getSession(t, user)).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: '/api/user/logout', as: user.cookie })).statusCode).toBe(200);
    expect((await getSession(t, user)).statusCode).toBe(401);
  });

  it("refuses a deleted user's cookie at once, though it was cached a moment before", async () => {
    const user = await buildUser(t.ctx);
    const admin = await buildAdmin(t.ctx);
    expect((await getSession(t, user)).statusCode).toBe(200);
    const res = await t.request({ method: 'DELETE', url: '/api/user/delete', as: admin.cookie, payload: { email: user.email } });
    expect(res.statusCode).toBe(200);
    expect((await getSession(t, user)).statusCode).toBe(401);
  });

  it('believes a cached session for at most SESSION_CACHE_TTL_MS when its row disappears unannounced', async () => {
    const user = await buildUser(t.ctx);
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(await findSessionUser(t.ctx, tokenOf(user))).toMatchObject({ id: user.id });
    // Deleted by hand in the database: no event, so only the TTL ends it (docs/security.md, Sessions).
    await t.ctx.db.delete(sessions).where(eq(sessions.userId, user.id));
    expect(await findSessionUser(t.ctx, tokenOf(user))).toMatchObject({ id: user.id });
    vi.setSystemTime(Date.now() + SESSION_CACHE_TTL_MS);
    expect(await findSessionUser(t.ctx, tokenOf(user))).toBeNull();
  });

  it("never believes a cached session past the session's own expiry", async () => {
    const user = await buildUser(t.ctx);
    await t.ctx.db.execute(sql`update sessions set expires_at = now() + interval '1 second' where user_id = ${user.id}`);
    vi.useFakeTimers({ toFake: ['Date'] });
    expect(await findSessionUser(t.ctx, tokenOf(user))).toMatchObject({ id: user.id });
    vi.setSystemTime(Date.now() + 1_500);
    expect(await findSessionUser(t.ctx, tokenOf(user))).toBeNull();
  });

  it('does not cache what a lookup read while a revocation happened (it may be the row just deleted)', async () => {
    const user = await buildUser(t.ctx);
    const inFlight = findSessionUser(t.ctx, tokenOf(user));
    t.ctx.events.emit('sessions.revoked', { reason: 'logout' });
    expect(await inFlight).toMatchObject({ id: user.id });
    // Had the in-flight lookup stored its row, this unannounced delete would go unnoticed for the TTL.
    await t.ctx.db.delete(sessions).where(eq(sessions.userId, user.id));
    expect(await findSessionUser(t.ctx, tokenOf(user))).toBeNull();
  });

  it('hands every request its own copy of the user', async () => {
    const user = await buildUser(t.ctx);
    await findSessionUser(t.ctx, tokenOf(user)); // from the database, now cached
    const cached = await findSessionUser(t.ctx, tokenOf(user));
    cached!.role = 'ADMIN';
    expect(await findSessionUser(t.ctx, tokenOf(user))).toEqual({ id: user.id, email: user.email, role: 'NORMAL' });
  });
});

/**
 * Two instances on one PostgreSQL (as behind a load balancer): a revocation on one reaches the other's cache
 * through LISTEN/NOTIFY. Only meaningful with TEST_DB=pg.
 */
describe.skipIf(process.env.TEST_DB !== 'pg')('session cache across two instances on one PostgreSQL', () => {
  let shared: Awaited<ReturnType<typeof openTestDatabase>>;
  const instances: { ctx: AppContext; request: TestApp['request']; close(): Promise<void> }[] = [];

  async function startInstance(url: string) {
    const database = openDatabase({ url, poolSize: 3 });
    const config = testConfig({ DATABASE_URL: url });
    const { app, ctx } = await buildApp({ config, database });
    await app.ready();
    await (ctx.events as PgEventBus).ready;
    const instance = {
      ctx,
      request: ((options) => app.inject({ ...options, headers: { ...options.headers, ...(options.as ? { cookie: options.as } : {}) } })) as TestApp['request'],
      close: async () => {
        await app.close();
        await database.close();
      },
    };
    instances.push(instance);
    return instance;
  }

  /** Resolves when `ctx`'s bus has delivered a sessions.revoked (its cache listener runs first). */
  const revocationReaches = (ctx: AppContext) => new Promise<void>((resolve) => {
    const off = ctx.events.on('sessions.revoked', () => {
      off();
      resolve();
    });
  });

  beforeAll(async () => {
    shared = await openTestDatabase();
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await shared.close();
  });

  it('a logout on one instance ends the session on the other', async () => {
    const a = await startInstance(shared.url!);
    const b = await startInstance(shared.url!);
    const user = await buildUser(a.ctx);
    expect((await getSession(b, user)).statusCode).toBe(200); // cached on b
    const reached = revocationReaches(b.ctx);
    expect((await a.request({ method: 'POST', url: '/api/user/logout', as: user.cookie })).statusCode).toBe(200);
    await reached;
    expect((await getSession(b, user)).statusCode).toBe(401);
  });

  it("a user deleted on one instance is refused on the other, with every one of the user's sessions", async () => {
    const a = instances[0];
    const b = instances[1];
    await buildAdmin(a.ctx);
    const user = await buildUser(a.ctx);
    // A second session of the same user (another browser), also cached on b.
    const other = { ...user, cookie: `sa_session=${await createSession(a.ctx, user.id)}` };
    expect((await getSession(b, user)).statusCode).toBe(200);
    expect((await getSession(b, other)).statusCode).toBe(200);
    const reached = revocationReaches(b.ctx);
    const res = await a.request({ method: 'DELETE', url: '/api/user/delete', as: user.cookie, payload: { email: user.email } });
    expect(res.statusCode).toBe(200);
    await reached;
    expect((await getSession(b, user)).statusCode).toBe(401);
    expect((await getSession(b, other)).statusCode).toBe(401);
  });
});
