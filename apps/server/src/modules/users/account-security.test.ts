import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config/env.ts';
import type { AppContext } from '../../context.ts';
import { type Database, openDatabase } from '../../db/client.ts';
import { loginThrottles, passwordTokens, sessions, users } from '../../db/schema/index.ts';
import type { TestApp } from '../../test/build-test-app.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser, findUserByEmail, type TestUser } from '../../test/factories.ts';
import { linkIn, startSmtpFake } from '../../test/fakes/smtp-fake.ts';
import { openTestDatabase } from '../../test/test-database.ts';
import type { PgEventBus } from '../../lib/events.ts';
import { FREE_ATTEMPTS } from './login-throttle.ts';
import { issuePasswordToken } from './password-tokens.ts';
import { ensureAdmin } from './users.service.ts';

/**
 * Issue 29: nobody takes over an account through set-password, guesses are bounded per account on every
 * instance, common passwords are refused, password changes end the other sessions, and "forgot password"
 * works by email (a loopback SMTP server) or by an ADMIN's link.
 */
const smtp = useFake(() => startSmtpFake());
const t = useTestApp({ env: () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Sales Agent <accounts@example.com>' }) });

const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0];
const setPassword = (payload: Record<string, unknown>, as?: string) => t.request({ method: 'POST', url: '/api/user/set-password', payload, as });
const login = (app: { request: TestApp['request'] }, email: string, password: string) =>
  app.request({ method: 'POST', url: '/api/user/login', payload: { email, password } });
const signedIn = async (cookie: string) => (await t.request({ method: 'POST', url: '/api/user/get-session', as: cookie })).statusCode === 200;

describe('set-password refuses the anonymous takeover', () => {
  it('answers the same 403 for an account without a password, one with a password and an unknown email', async () => {
    const facebookOnly = await buildUser(t.ctx, { password: null });
    const withPassword = await buildUser(t.ctx);
    const answers = await Promise.all(
      [facebookOnly.email, withPassword.email, 'nobody-here@example.com'].map((email) => setPassword({ email, password: 'attacker-chosen-91' })),
    );
    for (const res of answers) {
      expect(res.statusCode).toBe(403);
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('sa_session=');
    }
    expect(new Set(answers.map((res) => res.body)).size).toBe(1);
    expect(answers[0].json()).toMatchObject({ code: 'INVALID_SET_PASSWORD_LINK', error: expect.stringContaining('Forgot password?') });
    // Nothing changed: the victim still has no password, the other keeps theirs.
    expect((await findUserByEmail(t.ctx, facebookOnly.email)).passwordHash).toBeNull();
    expect((await login(t, withPassword.email, withPassword.password)).statusCode).toBe(200);
    // A made-up token, and a session of somebody else, are refused the same way.
    const madeUp = await setPassword({ email: facebookOnly.email, password: 'attacker-chosen-91', token: 'x'.repeat(43) });
    const otherSession = await setPassword({ email: facebookOnly.email, password: 'attacker-chosen-91' }, withPassword.cookie);
    expect(madeUp.body).toBe(answers[0].body);
    expect(otherSession.body).toBe(answers[0].body);
  });

  it('refuses a token made for another email, an expired token and a used one', async () => {
    const victim = await buildUser(t.ctx, { password: null });
    const attacker = await buildUser(t.ctx, { password: null });
    const refused = (res: { statusCode: number; json(): { code: string } }) => {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('INVALID_SET_PASSWORD_LINK');
    };
    // The attacker's own link (Facebook login gave it to them) does not open the victim's account.
    const own = await issuePasswordToken(t.ctx, { email: attacker.email, userId: attacker.id, purpose: 'FACEBOOK_LOGIN' });
    refused(await setPassword({ email: victim.email, password: 'attacker-chosen-91', token: own.token }));

    const expired = await issuePasswordToken(t.ctx, { email: victim.email, userId: victim.id, purpose: 'FORGOT_PASSWORD' });
    await t.ctx.db.update(passwordTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(passwordTokens.userId, victim.id));
    refused(await setPassword({ email: victim.email, password: 'attacker-chosen-91', token: expired.token }));

    const link = await issuePasswordToken(t.ctx, { email: victim.email, userId: victim.id, purpose: 'FACEBOOK_LOGIN' });
    // The policy refuses a common password without using the link up.
    const common = await setPassword({ email: victim.email, password: 'password', token: link.token });
    expect(common.statusCode).toBe(400);
    expect(common.json().code).toBe('PASSWORD_TOO_COMMON');
    const used = await setPassword({ email: victim.email, password: 'victims-own-choice-3', token: link.token });
    expect(used.statusCode).toBe(200);
    refused(await setPassword({ email: victim.email, password: 'attacker-chosen-91', token: link.token }));
    expect((await login(t, victim.email, 'victims-own-choice-3')).statusCode).toBe(200);
    expect((await login(t, victim.email, 'attacker-chosen-91')).statusCode).toBe(401);
    // Only hashes are stored, and the used link is gone.
    expect(await t.ctx.db.select().from(passwordTokens).where(eq(passwordTokens.userId, victim.id))).toEqual([]);
  });

  it("lets a signed-in user set their own first password once, and ends their other sessions", async () => {
    const me = await buildUser(t.ctx, { password: null });
    const otherDevice = await t.request({ method: 'POST', url: '/api/user/get-session', as: me.cookie });
    expect(otherDevice.statusCode).toBe(200);
    const second = `sa_session=${(await import('./session.service.ts').then((m) => m.createSession(t.ctx, me.id)))}`;
    const res = await setPassword({ email: me.email, password: 'my-first-password-5' }, me.cookie);
    expect(res.statusCode).toBe(200);
    expect(await signedIn(me.cookie)).toBe(true);
    expect(await signedIn(second)).toBe(false);
    // A change now needs the current password (change-password), not set-password.
    const again = await setPassword({ email: me.email, password: 'another-password-6' }, me.cookie);
    expect(again.statusCode).toBe(409);
  });

  it('a reset through a link ends every session of the account', async () => {
    const user = await buildUser(t.ctx);
    const { token } = await issuePasswordToken(t.ctx, { email: user.email, userId: user.id, purpose: 'ADMIN_RESET' });
    const res = await setPassword({ email: user.email, password: 'fresh-start-password-8', token });
    expect(res.statusCode).toBe(200);
    expect(await signedIn(user.cookie)).toBe(false);
    expect(await signedIn(cookieOf(res))).toBe(true);
    expect((await login(t, user.email, user.password)).statusCode).toBe(401);
  });
});

describe('forgot password', () => {
  it('emails a one-time link to an existing account and answers an unknown email the same way', async () => {
    const user = await buildUser(t.ctx);
    const known = await t.request({ method: 'POST', url: '/api/user/forgot-password', payload: { email: user.email } });
    const unknown = await t.request({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'nobody-at-all@example.com' } });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(unknown.body).toBe(known.body);

    const mail = await smtp.nextMailTo(user.email);
    expect(mail.from).toBe('accounts@example.com');
    expect(mail.subject).toBe('Set a new password for Sales Agent');
    const link = new URL(linkIn(mail)!);
    expect(link.origin + link.pathname).toBe('http://localhost:3000/set-password');
    expect(link.searchParams.get('email')).toBe(user.email);
    const token = link.searchParams.get('token')!;
    const res = await setPassword({ email: user.email, password: 'remembered-now-4', token });
    expect(res.statusCode).toBe(200);
    expect((await login(t, user.email, 'remembered-now-4')).statusCode).toBe(200);
    expect((await setPassword({ email: user.email, password: 'remembered-now-5', token })).statusCode).toBe(403);
    // Nothing was sent for the unknown email.
    expect(smtp.mails.some((m) => m.to.includes('nobody-at-all@example.com'))).toBe(false);
  });

  it('without SMTP_URL says to ask an administrator, the same for every email', async () => {
    // The same app with SMTP_URL unset (a second app would cost a migrated database).
    const config = t.ctx.config as { SMTP_URL?: string };
    const smtpUrl = config.SMTP_URL;
    config.SMTP_URL = undefined;
    try {
      const user = await buildUser(t.ctx);
      const known = await t.request({ method: 'POST', url: '/api/user/forgot-password', payload: { email: user.email } });
      const unknown = await t.request({ method: 'POST', url: '/api/user/forgot-password', payload: { email: 'nobody-at-all@example.com' } });
      expect(known.statusCode).toBe(503);
      expect(known.json().code).toBe('EMAIL_NOT_CONFIGURED');
      expect(unknown.body).toBe(known.body);
    } finally {
      config.SMTP_URL = smtpUrl;
    }
  });

  it('lets an ADMIN create a link for a user (NORMAL users may not)', async () => {
    const admin = await buildAdmin(t.ctx);
    const user = await buildUser(t.ctx);
    const url = `/api/admin/users/${encodeURIComponent(user.email)}/reset-link`;
    expect((await t.request({ method: 'POST', url, as: user.cookie })).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/api/admin/users/nobody%40example.com/reset-link', as: admin.cookie })).statusCode).toBe(404);
    const res = await t.request({ method: 'POST', url, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    const link = new URL(res.json().url);
    expect(new Date(res.json().expiresAt).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const set = await setPassword({ email: link.searchParams.get('email'), password: 'admin-gave-me-a-link-2', token: link.searchParams.get('token') });
    expect(set.statusCode).toBe(200);
    expect(await signedIn(user.cookie)).toBe(false);
  });
});

describe('password policy', () => {
  it.each(['password', 'Password1', '12345678', 'iloveyou', 'qwertyuiop'])('refuses the common password %s', async (password) => {
    const res = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'policy@example.com', password } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'PASSWORD_TOO_COMMON',
      error: 'This password is one of the most common passwords and easy to guess. Please choose another one.',
    });
  });

  it('keeps the spec message for short passwords and refuses the email as password', async () => {
    const short = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'policy@example.com', password: 'short' } });
    expect(short.json().error).toContain('Password must be at least 8 characters long');
    const own = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'policy.person@example.com', password: 'policy.person' } });
    expect(own.statusCode).toBe(400);
    expect(await findUserByEmail(t.ctx, 'policy@example.com')).toBeUndefined();
  });
});

describe('change password and sign out everywhere', () => {
  it('needs the current password, refuses a common new one, and ends the other sessions only', async () => {
    const user = await buildUser(t.ctx);
    const phone = cookieOf(await login(t, user.email, user.password));
    const change = (payload: Record<string, string>) => t.request({ method: 'POST', url: '/api/user/change-password', payload, as: user.cookie });
    expect((await t.request({ method: 'POST', url: '/api/user/change-password', payload: { currentPassword: 'x', newPassword: 'whatever-long-1' } })).statusCode).toBe(401);
    const wrong = await change({ currentPassword: 'not-my-password', newPassword: 'a-new-password-11' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('WRONG_PASSWORD');
    expect((await change({ currentPassword: user.password, newPassword: 'letmein1' })).json().code).toBe('PASSWORD_TOO_COMMON');
    expect((await change({ currentPassword: user.password, newPassword: 'short' })).json().error).toContain('Password must be at least 8 characters long');
    expect(await signedIn(phone)).toBe(true);

    const ok = await change({ currentPassword: user.password, newPassword: 'a-new-password-11' });
    expect(ok.statusCode).toBe(200);
    expect(await signedIn(user.cookie)).toBe(true);
    expect(await signedIn(phone)).toBe(false);
    expect((await login(t, user.email, user.password)).statusCode).toBe(401);
    expect((await login(t, user.email, 'a-new-password-11')).statusCode).toBe(200);
  });

  it('sign out everywhere ends every session of the user, this one included', async () => {
    const user = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    const laptop = cookieOf(await login(t, user.email, user.password));
    const res = await t.request({ method: 'POST', url: '/api/user/logout-everywhere', as: user.cookie });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/sa_session=;/);
    expect(await signedIn(user.cookie)).toBe(false);
    expect(await signedIn(laptop)).toBe(false);
    expect(await signedIn(other.cookie)).toBe(true);
    expect((await t.request({ method: 'POST', url: '/api/user/logout-everywhere' })).statusCode).toBe(401);
  });

  it('a role or password change by ADMIN_EMAIL/ADMIN_PASSWORD at start ends the sessions; an unchanged one keeps them', async () => {
    const user = await buildUser(t.ctx, { email: 'promoted@example.com' });
    await ensureAdmin(t.ctx, user.email, user.password);
    expect(await signedIn(user.cookie)).toBe(false);
    const again = cookieOf(await login(t, user.email, user.password));
    await ensureAdmin(t.ctx, user.email, user.password);
    expect(await signedIn(again)).toBe(true);
    await ensureAdmin(t.ctx, user.email, 'a-new-admin-password');
    expect(await signedIn(again)).toBe(false);
  });

  it('both are in the OpenAPI document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/docs/json' })).json();
    expect(doc.paths['/api/user/change-password'].post).toBeDefined();
    expect(doc.paths['/api/user/logout-everywhere'].post).toBeDefined();
    expect(doc.paths['/api/user/set-password'].post.requestBody.content['application/json'].schema.properties.token).toBeDefined();
  });
});

interface Instance {
  app: FastifyInstance;
  ctx: AppContext;
  request: TestApp['request'];
}

/**
 * Two app instances on one database: on PostgreSQL each with its own pool and listener (two processes behind a
 * load balancer); on PGlite both on the one embedded database.
 */
describe('per-account limit across two instances on one database', () => {
  let shared: Database & { url?: string };
  const pools: Database[] = [];
  const apps: FastifyInstance[] = [];
  let a: Instance;
  let b: Instance;

  async function startInstance(): Promise<Instance> {
    const database = shared.url ? openDatabase({ url: shared.url, poolSize: 3 }) : shared;
    if (shared.url) pools.push(database);
    const config = loadConfig({
      NODE_ENV: 'test',
      APP_SECRET: 'test-secret-test-secret-test-secret',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://localhost:3000',
      DATABASE_URL: shared.url,
      AUTH_RATE_LIMIT: '1000',
      DATA_DIR: `/tmp/sales-agent-test-${process.pid}`,
    });
    const { app, ctx } = await buildApp({ config, database });
    await app.ready();
    if (shared.url) await (ctx.events as PgEventBus).ready;
    apps.push(app);
    const request: TestApp['request'] = ({ as, headers, ...options }) => app.inject({ ...options, headers: { ...headers, ...(as ? { cookie: as } : {}) } });
    return { app, ctx, request };
  }

  beforeAll(async () => {
    shared = await openTestDatabase();
    a = await startInstance();
    b = await startInstance();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const pool of pools) await pool.close();
    await shared.close();
  });

  it('counts guesses on both instances together, from any address, then locks with a clear message', async () => {
    const victim: TestUser = await buildUser(a.ctx);
    // Guesses alternate between the instances and come from different addresses.
    for (let i = 0; i < FREE_ATTEMPTS; i++) {
      const instance = i % 2 ? b : a;
      const res = await instance.request({ method: 'POST', url: '/api/user/login', remoteAddress: `198.51.100.${i + 1}`, payload: { email: victim.email, password: `guess-number-${i}` } });
      expect(res.statusCode).toBe(401);
    }
    for (const instance of [a, b]) {
      const res = await login(instance, victim.email, `guess-number-last`);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({ code: 'ACCOUNT_LOCKED', error: 'Too many attempts for this account. Try again in 1 minute.' });
    }
    // While locked, even the right password is not checked.
    expect((await login(b, victim.email, victim.password)).statusCode).toBe(429);
    // An unknown email is locked the same way (the answer never tells which accounts exist).
    for (let i = 0; i < FREE_ATTEMPTS; i++) await login(i % 2 ? b : a, 'nobody-home@example.com', `guess-number-${i}`);
    expect((await login(a, 'nobody-home@example.com', 'guess-number-x')).json()).toEqual((await login(b, victim.email, 'x')).json());

    // The lock ends by itself (moved into the past here instead of waiting); the next failure locks longer.
    await a.ctx.db.update(loginThrottles).set({ lockedUntil: new Date(Date.now() - 1000) });
    expect((await login(b, victim.email, 'guess-number-again')).statusCode).toBe(401);
    expect((await login(a, victim.email, victim.password)).json()).toMatchObject({ error: 'Too many attempts for this account. Try again in 2 minutes.' });

    // After the lock, the right password works and the count starts again.
    await a.ctx.db.update(loginThrottles).set({ lockedUntil: new Date(Date.now() - 1000) });
    expect((await login(a, victim.email, victim.password)).statusCode).toBe(200);
    const [row] = await a.ctx.db.select().from(users).where(eq(users.email, victim.email));
    expect(row).toBeDefined();
    for (let i = 0; i < FREE_ATTEMPTS - 1; i++) expect((await login(i % 2 ? a : b, victim.email, `wrong-${i}`)).statusCode).toBe(401);
  });

  it('many guesses at once on both instances: at most the free attempts are checked', async () => {
    const victim = await buildUser(a.ctx);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(i % 2 ? a : b, victim.email, `parallel-guess-${i}`)),
    );
    const checked = answers.filter((res) => res.statusCode === 401).length;
    expect(checked).toBeLessThanOrEqual(FREE_ATTEMPTS);
    expect(answers.filter((res) => res.statusCode === 429)).toHaveLength(20 - checked);
  });

  it('a password change on one instance ends the other sessions on the other', async () => {
    const user = await buildUser(a.ctx);
    const other = cookieOf(await login(b, user.email, user.password));
    const revoked = new Promise<void>((resolve) => {
      const off = b.ctx.events.on('sessions.revoked', () => {
        off();
        resolve();
      });
    });
    const res = await a.request({ method: 'POST', url: '/api/user/change-password', payload: { currentPassword: user.password, newPassword: 'changed-on-a-instance' }, as: user.cookie });
    expect(res.statusCode).toBe(200);
    if (shared.url) await revoked;
    expect((await b.request({ method: 'POST', url: '/api/user/get-session', as: other })).statusCode).toBe(401);
    expect((await b.request({ method: 'POST', url: '/api/user/get-session', as: user.cookie })).statusCode).toBe(200);
    expect(await a.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
  });
});
