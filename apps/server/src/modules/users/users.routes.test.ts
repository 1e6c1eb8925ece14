import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { callRecordings, messagingAccounts, sessions, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { newStorageKey } from '../../lib/storage.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { useTestApp } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser, findUserByEmail } from '../../test/factories.ts';
import { issuePasswordToken } from './password-tokens.ts';

const t = useTestApp();

const cookieOf = (res: { headers: Record<string, unknown> }) =>
  String(res.headers['set-cookie']).split(';')[0];

describe('register', () => {
  it('makes the first account ADMIN and later ones NORMAL, logging each in', async () => {
    const first = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'Boss@Example.com', password: 'blue-harbor-71' } });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ email: 'boss@example.com', role: 'ADMIN' });
    const session = await t.request({ method: 'POST', url: '/api/user/get-session', as: cookieOf(first) });
    expect(session.json()).toEqual({ email: 'boss@example.com', role: 'ADMIN' });

    const second = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'rep@example.com', password: 'green-valley-42' } });
    expect(second.json().role).toBe('NORMAL');
  });

  it('stores an argon2id hash, never the password', async () => {
    const user = await findUserByEmail(t.ctx, 'rep@example.com');
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user.passwordHash).not.toContain('green-valley-42');
  });

  it('refuses a taken email with 409', async () => {
    const res = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'rep@example.com', password: 'green-valley-42' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'EMAIL_TAKEN' });
  });

  it.each([
    [{ email: '', password: 'blue-harbor-71' }, 'Email is required'],
    [{ email: 'a@b.co', password: 'short' }, 'Password must be at least 8 characters long'],
    [{ email: 'a@b.co', password: 12345678 }, 'password'],
    [{ password: 'blue-harbor-71' }, 'email'],
  ])('answers 400 naming the problem for %j', async (payload, text) => {
    const res = await t.request({ method: 'POST', url: '/api/user/register', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(res.json().error).toContain(text);
  });

  it('answers 400 for malformed JSON and 413 for a huge body, never 500', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/user/register', json: '{"email":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'The request body is not valid JSON.', code: 'INVALID_JSON' });
    const huge = await t.request({ method: 'POST', url: '/api/user/register', payload: { email: 'x@y.z', password: 'p'.repeat(2_000_000) } });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('login and logout', () => {
  it('logs in with the right password and stores only a hash of the session token', async () => {
    const res = await t.request({ method: 'POST', url: '/api/user/login', payload: { email: 'rep@example.com', password: 'green-valley-42' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: 'rep@example.com', role: 'NORMAL' });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const token = cookieOf(res).split('=')[1];
    const stored = await t.ctx.db.select().from(sessions);
    expect(stored.some((s) => s.id === token)).toBe(false);

    const out = await t.request({ method: 'POST', url: '/api/user/logout', as: cookieOf(res) });
    expect(out.statusCode).toBe(200);
    const after = await t.request({ method: 'POST', url: '/api/user/get-session', as: cookieOf(res) });
    expect(after.statusCode).toBe(401);
  });

  it('refuses a wrong password or unknown email with the same 401', async () => {
    const wrong = await t.request({ method: 'POST', url: '/api/user/login', payload: { email: 'rep@example.com', password: 'nope-nope' } });
    const unknown = await t.request({ method: 'POST', url: '/api/user/login', payload: { email: 'ghost@example.com', password: 'nope-nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('answers 400 with the spec texts for empty fields', async () => {
    const res = await t.request({ method: 'POST', url: '/api/user/login', payload: { email: 'a@b.co', password: '' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('Password is required');
  });

  it('refuses a state change from a foreign Origin', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/user/login',
      headers: { origin: 'https://evil.example' },
      payload: { email: 'rep@example.com', password: 'green-valley-42' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('get-session is 401 without a cookie', async () => {
    const res = await t.request({ method: 'POST', url: '/api/user/get-session' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHORIZED');
  });
});

describe('set-password', () => {
  it('answers 202 while the account of a valid link does not exist yet, and sets its first password once it does', async () => {
    const { token } = await issuePasswordToken(t.ctx, { email: 'soon@example.com', userId: null, purpose: 'ADMIN_RESET' });
    const res = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email: 'soon@example.com', password: 'blue-harbor-71', token } });
    expect(res.statusCode).toBe(202);
    await buildUser(t.ctx, { email: 'soon@example.com', password: null });
    const done = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email: 'soon@example.com', password: 'blue-harbor-71', token } });
    expect(done.statusCode).toBe(200);
  });

  it('sets the first password of a provisioned account through its link (token from the query too) and logs in', async () => {
    await buildUser(t.ctx, { email: 'meta@example.com', password: null });
    const { token } = await issuePasswordToken(t.ctx, { email: 'meta@example.com', userId: (await findUserByEmail(t.ctx, 'meta@example.com')).id, purpose: 'FACEBOOK_LOGIN' });
    const res = await t.request({ method: 'POST', url: `/api/user/set-password?token=${token}`, payload: { email: 'meta@example.com', password: 'blue-harbor-71' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: 'meta@example.com', role: 'NORMAL' });
    expect((await t.request({ method: 'POST', url: '/api/user/get-session', as: cookieOf(res) })).json().email).toBe('meta@example.com');
    // The link worked once.
    const again = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email: 'meta@example.com', password: 'purple-orchard-9', token } });
    expect(again.statusCode).toBe(403);
  });

  it('validates length with the spec message', async () => {
    const res = await t.request({ method: 'POST', url: '/api/user/set-password', payload: { email: 'meta@example.com', password: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('Password must be at least 8 characters long');
  });
});

describe('profile, messaging accounts and delete', () => {
  it('shows a user their own profile, 403 for someone else, 404 for unknown (admin), 401 anonymous', async () => {
    const me = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    const admin = await buildAdmin(t.ctx);
    const own = await t.request({ method: 'GET', url: `/api/user/${me.email}`, as: me.cookie });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ email: me.email, role: 'NORMAL' });
    expect(own.json()).not.toHaveProperty('passwordHash');
    expect((await t.request({ method: 'GET', url: `/api/user/${other.email}`, as: me.cookie })).statusCode).toBe(403);
    const missing = await t.request({ method: 'GET', url: '/api/user/nobody@example.com', as: admin.cookie });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('User not found');
    expect((await t.request({ method: 'GET', url: `/api/user/${me.email}` })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/user/not-an-email', as: admin.cookie })).statusCode).toBe(400);
  });

  it('lists the messaging accounts granted to the user, saying which they connected and which need a reconnect', async () => {
    const me = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    const admin = await buildAdmin(t.ctx);
    const url = `/api/user/${me.email}/messaging-accounts`;
    expect((await t.request({ method: 'GET', url, as: me.cookie })).json()).toEqual({ messagingAccounts: [] });

    const token = 'EAAG-profile-secret-token';
    const [mine, shared] = await t.ctx.db
      .insert(messagingAccounts)
      .values([
        { type: 'INSTAGRAM', pageId: '17841', pageName: 'my_shop', accessTokenEncrypted: t.ctx.secrets.seal(token), createdByUserId: me.id, expirationDate: new Date('2031-01-01T00:00:00Z') },
        { type: 'FACEBOOK', pageId: '2001', pageName: 'Team Page', accessTokenEncrypted: t.ctx.secrets.seal(token), createdByUserId: other.id, tokenRejectedAt: new Date() },
      ])
      .returning();
    await t.ctx.db.insert(userMessagingAccounts).values([
      { userId: me.id, messagingAccountId: mine.id },
      { userId: me.id, messagingAccountId: shared.id },
    ]);
    const res = await t.request({ method: 'GET', url, as: me.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(token);
    expect(res.body).not.toContain('accessToken');
    expect(res.json().messagingAccounts).toEqual([
      {
        id: expect.any(Number),
        messagingAccountId: mine.id,
        isOwner: true,
        messagingAccount: { id: mine.id, type: 'INSTAGRAM', pageId: '17841', pageName: 'my_shop', expirationDate: '2031-01-01T00:00:00.000Z', conversationTypeId: null, reconnectNeeded: false },
      },
      {
        id: expect.any(Number),
        messagingAccountId: shared.id,
        isOwner: false,
        messagingAccount: { id: shared.id, type: 'FACEBOOK', pageId: '2001', pageName: 'Team Page', expirationDate: null, conversationTypeId: null, reconnectNeeded: true },
      },
    ]);
    // An ADMIN reads anyone's; another NORMAL user may not (403), an unknown user is 404, anonymous 401.
    expect((await t.request({ method: 'GET', url, as: admin.cookie })).json().messagingAccounts).toHaveLength(2);
    expect((await t.request({ method: 'GET', url, as: other.cookie })).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/api/user/nobody@example.com/messaging-accounts', as: admin.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
  });

  it('deletes the own account, ending its sessions', async () => {
    const me = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    expect((await t.request({ method: 'DELETE', url: '/api/user/delete', as: me.cookie, payload: { email: other.email } })).statusCode).toBe(403);
    const res = await t.request({ method: 'DELETE', url: '/api/user/delete', as: me.cookie, payload: { email: me.email } });
    expect(res.statusCode).toBe(200);
    expect(await findUserByEmail(t.ctx, me.email)).toBeUndefined();
    expect((await t.request({ method: 'POST', url: '/api/user/get-session', as: me.cookie })).statusCode).toBe(401);
  });

  it("removes the deleted user's recording files from storage, not only their rows", async () => {
    const me = await buildUser(t.ctx);
    const storage = recordingStorage(t.ctx);
    const key = newStorageKey('wav');
    const temp = path.join(storage.incomingDir, `${key}.part`);
    await writeFile(temp, 'RIFF....WAVE');
    await storage.putFile(key, temp, 'audio/wav');
    await t.ctx.db.insert(callRecordings).values({
      userId: me.id, storageKey: key, originalName: 'call.wav', mimeType: 'audio/wav', sizeBytes: 12, fileExtension: 'wav',
    });
    const res = await t.request({ method: 'DELETE', url: '/api/user/delete', as: me.cookie, payload: { email: me.email } });
    expect(res.statusCode).toBe(200);
    expect(await t.ctx.db.select().from(callRecordings).where(eq(callRecordings.userId, me.id))).toEqual([]);
    expect(await storage.size(key)).toBeNull();
  });

  it('never deletes the last administrator', async () => {
    await t.ctx.db.delete(users);
    const admin = await buildAdmin(t.ctx);
    const res = await t.request({ method: 'DELETE', url: '/api/user/delete', as: admin.cookie, payload: { email: admin.email } });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('LAST_ADMIN');
  });
});
