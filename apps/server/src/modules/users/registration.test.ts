import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.ts';
import { invitations, users } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildUser, findUserByEmail } from '../../test/factories.ts';
import { isPublicHost, openRegistrationWarning } from './registration.ts';

/** REGISTRATION=open|invite|closed and invitations (docs/deployment.md "Safe first start"). */
// Through the config loader like production; other modes below switch the loaded value.
const t = useTestApp({ env: { REGISTRATION: 'invite', PUBLIC_URL: 'https://sales.example.com' } });
const admin = useUser(t, 'ADMIN');
beforeEach(() => {
  t.ctx.config.REGISTRATION = 'invite';
});

const register = (email: string, invitation?: string) =>
  t.request({ method: 'POST', url: '/api/user/register', payload: { email, password: 'invited-reg-pass-7', ...(invitation ? { invitation } : {}) } });

async function invite(email: string): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/api/admin/invitations/create', as: admin.cookie, payload: { email } });
  expect(res.statusCode).toBe(201);
  const link = new URL(res.json().link);
  expect(link.origin + link.pathname).toBe('https://sales.example.com/user/register');
  expect(link.searchParams.get('email')).toBe(email);
  return link.searchParams.get('invitation')!;
}

describe('REGISTRATION setting', () => {
  it('defaults to open and accepts only open, invite and closed', () => {
    const base = { APP_SECRET: 'test-secret-test-secret-test-secret' };
    expect(loadConfig(base).REGISTRATION).toBe('open');
    expect(loadConfig({ ...base, REGISTRATION: 'closed' }).REGISTRATION).toBe('closed');
    expect(() => loadConfig({ ...base, REGISTRATION: 'sometimes' })).toThrow(/REGISTRATION/);
  });
});

describe('REGISTRATION=open', () => {
  it('lets anyone register, and says so to the register page', async () => {
    t.ctx.config.REGISTRATION = 'open';
    expect((await t.request({ method: 'GET', url: '/api/user/registration' })).json()).toEqual({ mode: 'open', message: null });
    const res = await register('open-reg@example.com');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ email: 'open-reg@example.com', role: 'NORMAL' });
  });
});

describe('REGISTRATION=closed', () => {
  it('answers 403 with a sentence, invitation or not, and tells the register page', async () => {
    t.ctx.config.REGISTRATION = 'closed';
    const info = (await t.request({ method: 'GET', url: '/api/user/registration' })).json();
    expect(info).toEqual({ mode: 'closed', message: expect.stringMatching(/^Registration is closed on this server\./) });
    const res = await register('closed-reg@example.com');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ code: 'REGISTRATION_CLOSED', error: info.message });
    expect(await findUserByEmail(t.ctx, 'closed-reg@example.com')).toBeUndefined();

    t.ctx.config.REGISTRATION = 'invite';
    const token = await invite('closed-invited@example.com');
    t.ctx.config.REGISTRATION = 'closed';
    expect((await register('closed-invited@example.com', token)).json()).toMatchObject({ code: 'REGISTRATION_CLOSED' });
  });
});

describe('REGISTRATION=invite', () => {
  it('refuses a registration without an invitation with a sentence', async () => {
    const info = (await t.request({ method: 'GET', url: '/api/user/registration' })).json();
    expect(info).toEqual({ mode: 'invite', message: expect.stringMatching(/by invitation only/) });
    const res = await register('uninvited@example.com');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ code: 'REGISTRATION_INVITE_ONLY', error: info.message });
  });

  it("lets the invited email register once with the link's token, as a NORMAL user", async () => {
    const token = await invite('invited@example.com');
    const listed = (await t.request({ method: 'GET', url: '/api/admin/invitations/list', as: admin.cookie })).json();
    expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'invited@example.com' })]));
    // The token only works for the email it was made for.
    const other = await register('someone-else@example.com', token);
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ code: 'INVITATION_INVALID', error: expect.stringContaining('not valid for this email') });

    const res = await register('invited@example.com', token);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ email: 'invited@example.com', role: 'NORMAL' });
    // Used: gone from the list, and a second use is refused.
    const after = (await t.request({ method: 'GET', url: '/api/admin/invitations/list', as: admin.cookie })).json();
    expect(after.map((i: { email: string }) => i.email)).not.toContain('invited@example.com');
    expect((await register('invited@example.com', token)).json()).toMatchObject({ code: 'INVITATION_INVALID' });
  });

  it('refuses an expired or revoked invitation, and a new invitation replaces the old one', async () => {
    const expired = await invite('late@example.com');
    await t.ctx.db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitations.email, 'late@example.com'));
    expect((await register('late@example.com', expired)).json()).toMatchObject({ code: 'INVITATION_INVALID' });

    const first = await invite('twice@example.com');
    const second = await invite('twice@example.com');
    expect((await register('twice@example.com', first)).statusCode).toBe(403);
    const [row] = (await t.request({ method: 'GET', url: '/api/admin/invitations/list', as: admin.cookie })).json().filter((i: { email: string }) => i.email === 'twice@example.com');
    const revoked = await t.request({ method: 'DELETE', url: `/api/admin/invitations/${row.id}`, as: admin.cookie });
    expect(revoked.json()).toEqual({ message: 'Invitation revoked.' });
    expect((await register('twice@example.com', second)).json()).toMatchObject({ code: 'INVITATION_INVALID' });
    expect((await t.request({ method: 'DELETE', url: `/api/admin/invitations/${row.id}`, as: admin.cookie })).statusCode).toBe(404);
  });

  it('gives the invitation back when the registration itself fails', async () => {
    const token = await invite('race@example.com');
    // Someone created the account in between (e.g. Meta login): 409, and the invitation is not spent.
    await t.ctx.db.insert(users).values({ email: 'race@example.com', passwordHash: null });
    expect((await register('race@example.com', token)).json()).toMatchObject({ code: 'EMAIL_TAKEN' });
    const [row] = await t.ctx.db.select().from(invitations).where(eq(invitations.email, 'race@example.com'));
    expect(row.usedAt).toBeNull();
  });

  it('lets only an ADMIN manage invitations, and not for an existing account', async () => {
    const user = await buildUser(t.ctx);
    for (const [method, url] of [
      ['POST', '/api/admin/invitations/create'],
      ['GET', '/api/admin/invitations/list'],
      ['DELETE', '/api/admin/invitations/1'],
    ] as const) {
      expect((await t.request({ method, url, as: user.cookie, payload: method === 'POST' ? { email: 'x@example.com' } : undefined })).statusCode).toBe(403);
      expect((await t.request({ method, url, payload: method === 'POST' ? { email: 'x@example.com' } : undefined })).statusCode).toBe(401);
    }
    const taken = await t.request({ method: 'POST', url: '/api/admin/invitations/create', as: admin.cookie, payload: { email: user.email } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ code: 'EMAIL_TAKEN' });
  });
});

describe('the warning at start on a public address', () => {
  it('knows loopback from public hosts', () => {
    for (const host of ['127.0.0.1', '127.0.1.1', '::1', '[::1]', 'localhost']) expect(isPublicHost(host)).toBe(false);
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'sales.example.com']) expect(isPublicHost(host)).toBe(true);
  });

  it('warns with open registration, a public HOST and no ADMIN yet, and only then', async () => {
    const config = t.ctx.config;
    Object.assign(config, { REGISTRATION: 'open', HOST: '0.0.0.0' });
    // This database has ADMINs (built above): nothing to warn about.
    expect(await openRegistrationWarning(t.ctx)).toBeNull();
    const admins = await t.ctx.db.update(users).set({ role: 'NORMAL' }).where(eq(users.role, 'ADMIN')).returning({ id: users.id });
    try {
      expect(await openRegistrationWarning(t.ctx)).toMatch(/whoever registers first becomes ADMIN. Set REGISTRATION=invite/);
      config.HOST = '127.0.0.1';
      expect(await openRegistrationWarning(t.ctx)).toBeNull();
      Object.assign(config, { REGISTRATION: 'invite', HOST: '0.0.0.0' });
      expect(await openRegistrationWarning(t.ctx)).toBeNull();
    } finally {
      for (const { id } of admins) await t.ctx.db.update(users).set({ role: 'ADMIN' }).where(eq(users.id, id));
      config.HOST = '0.0.0.0';
    }
  });
});
