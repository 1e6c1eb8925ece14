import { inspect } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { messagingAccounts, passwordTokens, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { buildTestApp, type TestApp } from '../../test/build-test-app.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser, findUserByEmail, type TestUser } from '../../test/factories.ts';
import { graphError, MetaOAuthFake } from '../../test/fakes/meta-oauth-fake.ts';
import { untilLockWait, withDatabase } from '../../test/test-database.ts';
import { connectAccounts } from './meta-auth.service.ts';
import { STATE_COOKIE } from './oauth-state.ts';

const fake = useFake(new MetaOAuthFake());
const t = useTestApp({ env: () => fake.env() });
/** The same app without any Meta configuration. */
const bare = useTestApp();
const logged: string[] = [];

beforeAll(async () => {
  // Every warning and error the app logs, to prove the reason is there and no token ever is.
  for (const level of ['warn', 'error'] as const) {
    const original = t.ctx.log[level].bind(t.ctx.log);
    t.ctx.log[level] = ((...args: unknown[]) => {
      logged.push(inspect(args, { depth: 6 }));
      return (original as (...a: unknown[]) => void)(...args);
    }) as never;
  }
});

const nonceCookie = (res: { headers: Record<string, unknown> }) => {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
  return cookies.find((c) => c.startsWith(`${STATE_COOKIE}=`))!.split(';')[0];
};

/** Starts a flow like the browser does: connect-url, then the dialog's answer (state back plus a code). */
async function startFlow(type: string, user?: TestUser) {
  const res = await t.request({ method: 'GET', url: `/api/meta-api/connect-url?type=${type}`, as: user?.cookie });
  expect(res.statusCode).toBe(200);
  const url = new URL(res.json().url);
  const cookie = [user?.cookie, nonceCookie(res)].filter(Boolean).join('; ');
  return { url, state: url.searchParams.get('state')!, cookie };
}

/** A whole Facebook login round trip with the fake's current user, optionally from a signed-in browser. */
async function facebookLogin(user?: TestUser, app: TestApp = t) {
  const res = await app.request({ method: 'GET', url: '/api/meta-api/connect-url?type=LOGIN', as: user?.cookie });
  const state = new URL(res.json().url).searchParams.get('state')!;
  const cookie = [user?.cookie, nonceCookie(res)].filter(Boolean).join('; ');
  return app.request({ method: 'POST', url: '/api/meta-api/meta-login-register-redirect', headers: { cookie }, payload: { code: fake.issueUserToken(), state } });
}

/** Meta's login redirect lands: the token (`code`) and the flow's state, with the flow's nonce cookie. */
const registerRedirect = (flow: { cookie: string; state: string }, code: string) =>
  t.request({ method: 'POST', url: '/api/meta-api/meta-login-register-redirect', headers: { cookie: flow.cookie }, payload: { code, state: flow.state } });

async function connect(type: string, user: TestUser) {
  const flow = await startFlow(type, user);
  const code = fake.issueCode(type === 'INSTAGRAM' ? 'instagram' : 'facebook');
  return t.request({ method: 'POST', url: `/api/meta-api/connect-meta-page?type=${type}`, headers: { cookie: flow.cookie }, payload: { code, state: flow.state } });
}

describe('GET /api/meta-api/config', () => {
  it('gives the browser the client ids and dialog URLs at run time', async () => {
    const res = await t.request({ method: 'GET', url: '/api/meta-api/config' });
    expect(res.json()).toEqual({
      metaAppId: fake.appId,
      instagramAppId: fake.instagramAppId,
      facebookDialogUrl: `${fake.baseUrl}/v27.0/dialog/oauth`,
      instagramDialogUrl: `${fake.baseUrl}/oauth/authorize`,
      canConnect: { INSTAGRAM: true, FACEBOOK: true, WHATSAPP: true },
    });
    const none = await bare.request({ method: 'GET', url: '/api/meta-api/config' });
    expect(none.json().metaAppId).toBeNull();
    // Without the Meta app no connect flow can start: the web disables the buttons with the reason.
    expect(none.json().canConnect).toEqual({ INSTAGRAM: false, FACEBOOK: false, WHATSAPP: false });
  });
});

describe('GET /api/meta-api/connect-url', () => {
  it('builds each dialog with its scopes, redirect and a signed state', async () => {
    const user = await buildUser(t.ctx);
    const ig = await startFlow('INSTAGRAM', user);
    expect(ig.url.origin + ig.url.pathname).toBe(`${fake.baseUrl}/oauth/authorize`);
    expect(ig.url.searchParams.get('client_id')).toBe(fake.instagramAppId);
    expect(ig.url.searchParams.get('scope')).toContain('instagram_business_manage_messages');
    expect(ig.url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/user/connect-meta-page?type=INSTAGRAM');
    const wa = await startFlow('WHATSAPP', user);
    expect(wa.url.pathname).toBe('/v27.0/dialog/oauth');
    expect(wa.url.searchParams.get('scope')).toContain('whatsapp_business_messaging');
    expect(wa.url.searchParams.get('response_type')).toBe('code');
    const login = await startFlow('LOGIN');
    expect(login.url.searchParams.get('response_type')).toBe('token');
    expect(login.url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/user/meta-login-register-redirect');
  });

  it('needs a session to connect (401), a known type (400) and a configured app (503)', async () => {
    expect((await t.request({ method: 'GET', url: '/api/meta-api/connect-url?type=FACEBOOK' })).statusCode).toBe(401);
    const bad = await t.request({ method: 'GET', url: '/api/meta-api/connect-url?type=TWILIO' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_ERROR');
    const off = await bare.request({ method: 'GET', url: '/api/meta-api/connect-url?type=LOGIN' });
    expect(off.statusCode).toBe(503);
    expect(off.json()).toMatchObject({ code: 'META_NOT_CONFIGURED' });
    // What to set is for an ADMIN; a member (and a visitor) reads to ask their admin, never the type's internal name.
    const [bareMember, bareAdmin] = [await buildUser(bare.ctx), await buildAdmin(bare.ctx)];
    const member = await bare.request({ method: 'GET', url: '/api/meta-api/connect-url?type=FACEBOOK', as: bareMember.cookie });
    expect(member.json()).toEqual({ code: 'META_NOT_CONFIGURED', error: 'Connecting Facebook Page accounts is not set up on this server yet. Ask your admin.' });
    const forAdmin = await bare.request({ method: 'GET', url: '/api/meta-api/connect-url?type=WHATSAPP', as: bareAdmin.cookie });
    expect(forAdmin.json()).toEqual({ code: 'META_NOT_CONFIGURED', error: 'Connecting WhatsApp accounts is not set up on this server: set META_APP_ID and META_APP_SECRET.' });
  });
});

describe('POST /api/meta-api/meta-login-register-redirect', () => {
  it('registers a new person as NORMAL from a token of this app, logs them in and hands them a set-password link', async () => {
    const flow = await startFlow('LOGIN');
    const res = await registerRedirect(flow, fake.issueUserToken());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: fake.user.email, role: 'NORMAL', setPasswordToken: expect.any(String) });
    const session = String(res.headers['set-cookie']).match(/sa_session=[^;]+/)![0];
    expect((await t.request({ method: 'POST', url: '/api/user/get-session', as: session })).json().email).toBe(fake.user.email);
    const created = await findUserByEmail(t.ctx, fake.user.email);
    expect(created.passwordHash).toBeNull();
    expect(created.facebookId).toBe(fake.user.id);
    // Only a hash of the link's token is stored.
    const stored = await t.ctx.db.select().from(passwordTokens).where(eq(passwordTokens.userId, created.id));
    expect(stored).toHaveLength(1);
    expect(stored[0].tokenHash).not.toBe(res.json().setPasswordToken);

    // The link sets the password in another browser (no session there), then the password logs in.
    const set = await t.request({
      method: 'POST',
      url: '/api/user/set-password',
      payload: { email: fake.user.email, password: 'fiona-bakes-bread-7', token: res.json().setPasswordToken },
    });
    expect(set.statusCode).toBe(200);
    const login = await t.request({ method: 'POST', url: '/api/user/login', payload: { email: fake.user.email, password: 'fiona-bakes-bread-7' } });
    expect(login.statusCode).toBe(200);
    // The next Facebook login finds the account by its Facebook id and needs no link any more.
    const again = await facebookLogin();
    expect(again.json()).toEqual({ email: fake.user.email, role: 'NORMAL' });
  });

  it('creates no account when registration is invite-only or closed (REGISTRATION), and still signs in a linked one', async () => {
    for (const mode of ['invite', 'closed']) {
      const gated = await buildTestApp({ ...fake.env(), REGISTRATION: mode });
      try {
        fake.user = { ...fake.user, id: `1009${mode.length}`, email: `newcomer-${mode}@example.com` };
        const res = await facebookLogin(undefined, gated);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ code: 'REGISTRATION_CLOSED', error: expect.stringMatching(/^Registration .* (invitation|administrator)/) });
        expect(String(res.headers['set-cookie'] ?? '')).not.toContain('sa_session=');
        expect(await gated.ctx.db.select().from(users).where(eq(users.email, fake.user.email))).toHaveLength(0);
        // An account that exists already (made by an ADMIN's invitation, say) is not a registration.
        const existing = await buildUser(gated.ctx);
        await gated.ctx.db.update(users).set({ passwordHash: null, facebookId: fake.user.id }).where(eq(users.id, existing.id));
        const linked = await facebookLogin(undefined, gated);
        expect(linked.statusCode).toBe(200);
        expect(linked.json().email).toBe(existing.email);
      } finally {
        await gated.close();
      }
    }
  });

  it('never signs in to or links an ADMIN account through Facebook', async () => {
    const admin = await buildAdmin(t.ctx);
    fake.user = { ...fake.user, id: '10002', email: admin.email.toUpperCase() };
    const res = await facebookLogin();
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('Facebook login cannot be used for an administrator account. Log in with your email and password.');
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('sa_session=');
    expect((await findUserByEmail(t.ctx, admin.email)).facebookId).toBeNull();
    // Not even when signed in as that ADMIN.
    expect((await facebookLogin(admin)).statusCode).toBe(403);
  });

  it('links an existing password account only after its password is proven (wrong ones count per account)', async () => {
    const owner = await buildUser(t.ctx);
    fake.user = { ...fake.user, id: '10003', email: owner.email };
    const res = await facebookLogin();
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'META_LINK_PASSWORD_REQUIRED', email: owner.email, linkToken: expect.any(String) });
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('sa_session=');
    expect((await findUserByEmail(t.ctx, owner.email)).facebookId).toBeNull();

    const { linkToken } = res.json();
    const wrong = await t.request({ method: 'POST', url: '/api/meta-api/link-facebook', payload: { linkToken, password: 'not-the-password' } });
    expect(wrong.statusCode).toBe(401);
    const forged = await t.request({ method: 'POST', url: '/api/meta-api/link-facebook', payload: { linkToken: `${linkToken.split('.')[0]}.AAAA`, password: owner.password } });
    expect(forged.statusCode).toBe(400);
    const right = await t.request({ method: 'POST', url: '/api/meta-api/link-facebook', payload: { linkToken, password: owner.password } });
    expect(right.statusCode).toBe(200);
    expect(right.json()).toEqual({ email: owner.email, role: 'NORMAL' });
    expect((await findUserByEmail(t.ctx, owner.email)).facebookId).toBe('10003');
    expect((await facebookLogin()).json()).toEqual({ email: owner.email, role: 'NORMAL' });
  });

  it('links at once when the caller is signed in as that account', async () => {
    const owner = await buildUser(t.ctx);
    fake.user = { ...fake.user, id: '10004', email: owner.email };
    const res = await facebookLogin(owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: owner.email, role: 'NORMAL' });
    expect((await findUserByEmail(t.ctx, owner.email)).facebookId).toBe('10004');
  });

  it('refuses a token issued to another app (debug_token app id check)', async () => {
    const flow = await startFlow('LOGIN');
    const res = await registerRedirect(flow, fake.issueUserToken({ appId: 'someone-elses-app' }));
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('This Facebook login was not issued for this app. Please try again.');
  });

  it('refuses an invalid token, a missing code, a forged or reused state', async () => {
    let flow = await startFlow('LOGIN');
    const revoked = fake.issueUserToken({ valid: false });
    const invalid = await t.request({ method: 'POST', url: '/api/meta-api/meta-login-register-redirect', headers: { cookie: flow.cookie }, payload: { code: revoked, state: flow.state } });
    expect(invalid.statusCode).toBe(401);

    const missing = await t.request({ method: 'POST', url: '/api/meta-api/meta-login-register-redirect', payload: { state: flow.state } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toContain('Code not found');

    flow = await startFlow('LOGIN');
    const forged = await t.request({
      method: 'POST',
      url: '/api/meta-api/meta-login-register-redirect',
      headers: { cookie: flow.cookie },
      payload: { code: fake.issueUserToken(), state: `${flow.state.split('.')[0]}.AAAA` },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().code).toBe('INVALID_OAUTH_STATE');
    const noCookie = await t.request({ method: 'POST', url: '/api/meta-api/meta-login-register-redirect', payload: { code: fake.issueUserToken(), state: flow.state } });
    expect(noCookie.json().code).toBe('INVALID_OAUTH_STATE');
    // The refusals were logged with their reason, never with the token that was refused.
    expect(logged.some((line) => line.includes('facebook login'))).toBe(true);
    expect(logged.some((line) => line.includes(revoked))).toBe(false);
  });
});

describe('POST /api/meta-api/connect-meta-page', () => {
  it('connects Instagram through Instagram Login: long-lived token sealed, subscribed, granted, named', async () => {
    const user = await buildUser(t.ctx);
    const res = await connect('INSTAGRAM', user);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ pageName: fake.instagram.username });
    const [account] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, fake.instagram.userId));
    expect(account).toMatchObject({ type: 'INSTAGRAM', pageName: 'fake_bakery', createdByUserId: user.id, config: '{"login":"instagram"}' });
    expect(account.accessTokenEncrypted).toMatch(/^v1\./);
    expect(t.ctx.secrets.open(account.accessTokenEncrypted)).toMatch(/^IGQ/);
    expect(account.expirationDate!.getTime()).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    expect(fake.subscribed).toContain(fake.instagram.userId);
    // Read receipts too: the replies' delivery states (docs/channels.md).
    expect(fake.requests.find((r) => r.path.endsWith('/me/subscribed_apps'))?.query.subscribed_fields).toBe('messages,messaging_seen');
    const exchange = fake.requests.find((r) => r.path === '/oauth/access_token' && r.method === 'POST')!;
    expect(exchange.form).toMatchObject({ grant_type: 'authorization_code', redirect_uri: 'http://localhost:3000/user/connect-meta-page?type=INSTAGRAM' });

    const listed = await t.request({ method: 'GET', url: `/api/user/${user.email}/messaging-accounts`, as: user.cookie });
    expect(listed.json().messagingAccounts).toEqual([expect.objectContaining({ messagingAccountId: account.id })]);
    expect(listed.body).not.toContain('IGQ');
  });

  it('connects every granted Facebook Page with its Page token and updates on reconnect', async () => {
    const user = await buildUser(t.ctx);
    expect((await connect('FACEBOOK', user)).json()).toEqual({ pageName: 'Fake Bakery Page' });
    fake.pages = [{ id: '200001', name: 'Fake Bakery (renamed)' }];
    expect((await connect('FACEBOOK', user)).json()).toEqual({ pageName: 'Fake Bakery (renamed)' });
    const rows = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '200001'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'FACEBOOK', pageName: 'Fake Bakery (renamed)', expirationDate: null, createdByUserId: user.id });
    expect(fake.subscribed).toContain('200001');
    expect(fake.requests.find((r) => r.path.endsWith('/200001/subscribed_apps'))?.query.subscribed_fields).toBe(
      'messages,messaging_postbacks,message_echoes,message_deliveries,message_reads',
    );
    expect(fake.requests.some((r) => r.query.grant_type === 'fb_exchange_token')).toBe(true);
  });

  it('a reconnect clears "reconnect needed"; a colleague reconnecting is granted the account but does not own it', async () => {
    const owner = await buildUser(t.ctx);
    const colleague = await buildUser(t.ctx);
    fake.pages = [{ id: '200051', name: 'Shared Page' }];
    await connect('FACEBOOK', owner);
    const [before] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '200051'));
    await t.ctx.db.update(messagingAccounts).set({ tokenRejectedAt: new Date() }).where(eq(messagingAccounts.id, before.id));

    expect((await connect('FACEBOOK', colleague)).statusCode).toBe(200);
    const [after] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '200051'));
    expect(after).toMatchObject({ id: before.id, tokenRejectedAt: null, createdByUserId: owner.id });
    const listed = (await t.request({ method: 'GET', url: `/api/user/${colleague.email}/messaging-accounts`, as: colleague.cookie })).json();
    expect(listed.messagingAccounts).toEqual([expect.objectContaining({ messagingAccountId: before.id, isOwner: false })]);
    expect(listed.messagingAccounts[0].messagingAccount.reconnectNeeded).toBe(false);
    const denied = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${before.id}`, as: colleague.cookie });
    expect(denied.statusCode).toBe(403);
  });

  it("answers 'Error connecting {type} account' when nothing usable was granted", async () => {
    fake.pages = [{ id: '200061', name: 'No Instagram here' }];
    const metaOnly = await buildTestApp({ ...fake.env(), INSTAGRAM_APP_ID: '', INSTAGRAM_APP_SECRET: '' });
    try {
      const u = await buildUser(metaOnly.ctx);
      const start = await metaOnly.request({ method: 'GET', url: '/api/meta-api/connect-url?type=INSTAGRAM', as: u.cookie });
      const res = await metaOnly.request({
        method: 'POST',
        url: '/api/meta-api/connect-meta-page?type=INSTAGRAM',
        headers: { cookie: `${u.cookie}; ${nonceCookie(start)}` },
        payload: { code: fake.issueCode(), state: new URL(start.json().url).searchParams.get('state') },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ error: 'Error connecting INSTAGRAM account', code: 'META_NOTHING_GRANTED' });
    } finally {
      await metaOnly.close();
    }
  });

  it('connects every Page of a business whose Pages span several Graph pages (paging.next)', async () => {
    const user = await buildUser(t.ctx);
    fake.pages = Array.from({ length: 5 }, (_, i) => ({ id: String(500000 + i), name: `Branch ${i}` }));
    fake.maxPageSize = 2;
    try {
      const res = await connect('FACEBOOK', user);
      expect(res.statusCode).toBe(200);
    } finally {
      fake.maxPageSize = 100;
    }
    const listed = (await t.request({ method: 'GET', url: `/api/user/${user.email}/messaging-accounts`, as: user.cookie })).json();
    expect(listed.messagingAccounts.map((a: { messagingAccount: { pageId: string } }) => a.messagingAccount.pageId)).toEqual(fake.pages.map((p) => p.id));
    expect(fake.requests.filter((r) => r.path === '/v27.0/me/accounts' && r.query.after)).toHaveLength(2);
  });

  it('connects the WhatsApp numbers of the granted Business account', async () => {
    const user = await buildUser(t.ctx);
    expect((await connect('WHATSAPP', user)).json()).toEqual({ pageName: 'Fake Bakery WhatsApp' });
    const [account] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '400001'));
    expect(account).toMatchObject({ type: 'WHATSAPP', config: '{"wabaId":"300001"}' });
    const [grant] = await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, account.id));
    expect(grant.userId).toBe(user.id);
    expect(fake.subscribed).toContain('300001');
  });

  it("answers 'Error connecting {type} account' on a Graph error, logging the reason and no token", async () => {
    const user = await buildUser(t.ctx);
    fake.failNext('/v27.0/me/accounts', 400, graphError('(#200) Permissions error', 200));
    const res = await connect('FACEBOOK', user);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: 'Error connecting FACEBOOK account', code: 'META_CONNECT_FAILED' });
    expect(logged.some((line) => line.includes('Permissions error'))).toBe(true);
    expect(logged.some((line) => /EAA[0-9a-f]{8}|IGQ[0-9a-f]{8}/.test(line))).toBe(false);

    const flow = await startFlow('INSTAGRAM', user);
    const badCode = await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page?type=INSTAGRAM', headers: { cookie: flow.cookie }, payload: { code: 'not-a-code', state: flow.state } });
    expect(badCode.json().error).toBe('Error connecting INSTAGRAM account');
  });

  it('refuses anonymous (401), a missing code (400), a state of another user or type (400), and uses a state once', async () => {
    const user = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    expect((await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page', payload: { code: 'x' } })).statusCode).toBe(401);
    const flow = await startFlow('FACEBOOK', user);
    const noCode = await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page?type=FACEBOOK', headers: { cookie: flow.cookie }, payload: { state: flow.state } });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json().error).toContain('Code not found');

    const otherCookie = `${other.cookie}; ${flow.cookie.split('; ')[1]}`;
    const stolen = await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page?type=FACEBOOK', headers: { cookie: otherCookie }, payload: { code: fake.issueCode(), state: flow.state } });
    expect(stolen.json().code).toBe('INVALID_OAUTH_STATE');
    const wrongType = await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page?type=WHATSAPP', headers: { cookie: flow.cookie }, payload: { code: fake.issueCode(), state: flow.state } });
    expect(wrongType.json().code).toBe('INVALID_OAUTH_STATE');

    const ok = await t.request({ method: 'POST', url: '/api/meta-api/connect-meta-page?type=FACEBOOK', headers: { cookie: flow.cookie }, payload: { code: fake.issueCode(), state: flow.state } });
    expect(ok.statusCode).toBe(200);
    // The answer clears the nonce cookie; the browser no longer holds it, so the same state cannot finish again.
    expect(String(ok.headers['set-cookie'])).toContain(`${STATE_COOKIE}=;`);
  });
});

/**
 * A builder (insert(…).values(…)…) that runs `first` before it executes, whichever of its methods are chained.
 * Drizzle's builders execute when awaited (then).
 */
function runningFirst<T extends object>(builder: T, first: () => Promise<unknown>): T {
  return new Proxy(builder, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === 'then') {
        return (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) =>
          first().then(() => (target as unknown as PromiseLike<unknown>).then(ok, fail));
      }
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result && typeof result === 'object' ? runningFirst(result, first) : result;
      };
    },
  });
}

/**
 * A database whose transactions see `appear` run right before their first write to messaging_accounts, in the
 * same transaction: the state a concurrent ADMIN save committed at that moment leaves behind on PostgreSQL
 * (visible to the write's unique check, not to any look-up before it). PGlite runs one transaction at a time,
 * so the race is staged this way on both databases.
 */
function rowAppearsBeforeAccountWrite(db: AppContext['db'], appear: (tx: AppContext['db']) => Promise<unknown>): AppContext['db'] {
  let fired = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== 'transaction') return Reflect.get(target, prop, target);
      return (fn: (tx: AppContext['db']) => Promise<unknown>) =>
        target.transaction((tx) =>
          fn(
            new Proxy(tx, {
              get(txTarget, txProp) {
                const value: unknown = Reflect.get(txTarget, txProp, txTarget);
                if (txProp !== 'insert') return typeof value === 'function' ? value.bind(txTarget) : value;
                return (table: unknown) => {
                  const builder = txTarget.insert(table as typeof messagingAccounts);
                  if (table !== messagingAccounts || fired) return builder;
                  fired = true;
                  return runningFirst(builder, () => appear(txTarget as unknown as AppContext['db']));
                };
              },
            }) as unknown as AppContext['db'],
          ),
        );
    },
  });
}

describe('connect while an ADMIN creates the same account (unique (type, pageId), migration 0008)', () => {
  const adminAccount = (admin: TestUser, pageId: string) => ({
    type: 'FACEBOOK' as const,
    pageId,
    pageName: 'Typed in by the admin',
    accessTokenEncrypted: t.ctx.secrets.seal('EAA-admin-typed-token'),
    config: '{"note":"set by the admin"}',
    createdByUserId: admin.id,
  });

  async function expectConnectedIntoAdminsAccount(pageId: string, admin: TestUser, user: TestUser) {
    const rows = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, pageId));
    expect(rows).toHaveLength(1);
    // The connect brought the token and name; the admin who made the account still owns it, and keeps its config.
    expect(rows[0]).toMatchObject({ pageName: 'Raced Page', createdByUserId: admin.id, config: '{"note":"set by the admin"}' });
    expect(t.ctx.secrets.open(rows[0].accessTokenEncrypted)).not.toBe('EAA-admin-typed-token');
    const grants = await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, rows[0].id));
    expect(grants.map((g) => g.userId)).toEqual([user.id]);
  }

  it('updates the account an ADMIN created between the look-up and the write, instead of failing with a unique violation', async () => {
    const admin = await buildAdmin(t.ctx);
    const user = await buildUser(t.ctx);
    fake.pages = [{ id: '200091', name: 'Raced Page' }];
    const racing = rowAppearsBeforeAccountWrite(t.ctx.db, (tx) => tx.insert(messagingAccounts).values(adminAccount(admin, '200091')));
    const actor = { id: user.id, email: user.email, role: user.role };
    await expect(connectAccounts({ ...t.ctx, db: racing }, actor, 'FACEBOOK', fake.issueCode())).resolves.toEqual({ pageName: 'Raced Page' });
    await expectConnectedIntoAdminsAccount('200091', admin, user);
  });

  it.skipIf(process.env.TEST_DB !== 'pg')('PostgreSQL: a connect waiting on an ADMIN\'s uncommitted insert of the page updates it once it commits (200, not 500)', async () => {
    const admin = await buildAdmin(t.ctx);
    const user = await buildUser(t.ctx);
    fake.pages = [{ id: '200092', name: 'Raced Page' }];
    const { rows } = (await t.ctx.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] };
    const other = new pg.Client({ connectionString: withDatabase(process.env.TEST_DATABASE_URL!, rows[0].name) });
    await other.connect();
    try {
      // The admin's save is in flight on another connection: inserted, not yet committed.
      const row = adminAccount(admin, '200092');
      await other.query('begin');
      await other.query(
        'insert into messaging_accounts (type, page_id, page_name, access_token_encrypted, config, created_by_user_id) values ($1, $2, $3, $4, $5, $6)',
        [row.type, row.pageId, row.pageName, row.accessTokenEncrypted, row.config, row.createdByUserId],
      );
      let settled = false;
      const connecting = connect('FACEBOOK', user).finally(() => (settled = true));
      // Until the connect's write waits on that row (PostgreSQL has no event for it, so its lock table is watched).
      await untilLockWait(t.ctx.db, () => settled);
      expect(settled).toBe(false);
      await other.query('commit');
      const res = await connecting;
      expect(res.statusCode, res.body).toBe(200);
      await expectConnectedIntoAdminsAccount('200092', admin, user);
    } finally {
      await other.end();
    }
  });
});

describe('Instagram through Facebook Login (no Instagram app configured)', () => {
  it('connects the Instagram account linked to a granted Page, with the Page token', async () => {
    const metaOnly = await buildTestApp({ ...fake.env(), INSTAGRAM_APP_ID: '', INSTAGRAM_APP_SECRET: '' });
    try {
      const user = await buildUser(metaOnly.ctx);
      const start = await metaOnly.request({ method: 'GET', url: '/api/meta-api/connect-url?type=INSTAGRAM', as: user.cookie });
      const url = new URL(start.json().url);
      expect(url.pathname).toBe('/v27.0/dialog/oauth');
      expect(url.searchParams.get('client_id')).toBe(fake.appId);
      expect(url.searchParams.get('scope')).toContain('instagram_manage_messages');
      fake.pages = [{ id: '200077', name: 'Linked Page', instagram: { id: '17841400000000077', username: 'linked_ig' } }, { id: '200078', name: 'No Instagram' }];
      const res = await metaOnly.request({
        method: 'POST',
        url: '/api/meta-api/connect-meta-page?type=INSTAGRAM',
        headers: { cookie: `${user.cookie}; ${nonceCookie(start)}` },
        payload: { code: fake.issueCode(), state: url.searchParams.get('state') },
      });
      expect(res.json()).toEqual({ pageName: 'linked_ig' });
      const rows = await metaOnly.ctx.db.select().from(messagingAccounts);
      expect(rows).toEqual([expect.objectContaining({ type: 'INSTAGRAM', pageId: '17841400000000077', config: '{"login":"facebook"}', createdByUserId: user.id })]);
      expect(fake.subscribed).toContain('200077');
    } finally {
      await metaOnly.close();
    }
  });
});

describe('GET /api/meta-api/page-name', () => {
  it("looks a name up with the account's stored token, for the owner or an ADMIN only", async () => {
    const owner = await buildUser(t.ctx);
    const stranger = await buildUser(t.ctx);
    const admin = await buildAdmin(t.ctx);
    fake.pages = [{ id: '200009', name: 'Named Page' }];
    await connect('FACEBOOK', owner);
    const url = '/api/meta-api/page-name?pageId=200009&type=FACEBOOK&accessToken=ignored';
    const res = await t.request({ method: 'GET', url, as: owner.cookie });
    expect(res.json()).toEqual({ name: 'Named Page' });
    expect((await t.request({ method: 'GET', url, as: admin.cookie })).json()).toEqual({ name: 'Named Page' });
    expect((await t.request({ method: 'GET', url, as: stranger.cookie })).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/meta-api/page-name?pageId=nope&type=FACEBOOK', as: owner.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/meta-api/page-name?type=FACEBOOK', as: owner.cookie })).statusCode).toBe(400);

    const [account] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '200009'));
    fake.names.set('prospect-77', 'Pat Prospect');
    const prospect = await t.request({ method: 'GET', url: `/api/meta-api/page-name?pageId=prospect-77&type=FACEBOOK&messagingAccountId=${account.id}`, as: owner.cookie });
    expect(prospect.json()).toEqual({ name: 'Pat Prospect' });
  });

  it('flags the account "reconnect needed" when Meta rejects its token (190) and answers the stored name', async () => {
    const owner = await buildUser(t.ctx);
    fake.pages = [{ id: '200071', name: 'Revoked Page' }];
    await connect('FACEBOOK', owner);
    const [account] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, '200071'));
    fake.revoke(t.ctx.secrets.open(account.accessTokenEncrypted));
    const res = await t.request({ method: 'GET', url: '/api/meta-api/page-name?pageId=200071&type=FACEBOOK', as: owner.cookie });
    expect(res.json()).toEqual({ name: 'Revoked Page' });
    const [flagged] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, account.id));
    expect(flagged.tokenRejectedAt).not.toBeNull();
    const listed = (await t.request({ method: 'GET', url: `/api/user/${owner.email}/messaging-accounts`, as: owner.cookie })).json();
    expect(listed.messagingAccounts[0].messagingAccount.reconnectNeeded).toBe(true);
  });

  it('answers the cached name without calling Meta again', async () => {
    const admin = await buildAdmin(t.ctx);
    const before = fake.requests.filter((r) => r.path === '/v27.0/200009').length;
    await t.request({ method: 'GET', url: '/api/meta-api/page-name?pageId=200009&type=FACEBOOK', as: admin.cookie });
    expect(fake.requests.filter((r) => r.path === '/v27.0/200009').length).toBe(before);
  });
});
