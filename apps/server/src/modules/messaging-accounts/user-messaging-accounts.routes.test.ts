import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { messagingAccounts, userMessagingAccounts } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildUser } from '../../test/factories.ts';

let accountId: number;
const secretToken = 'EAAG-permission-test-token-7777';
const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
beforeAll(async () => {
  const [account] = await t.ctx.db
    .insert(messagingAccounts)
    .values({ type: 'INSTAGRAM', accessTokenEncrypted: t.ctx.secrets.seal(secretToken), pageId: 'ig-1', pageName: 'Smile Studio' })
    .returning();
  accountId = account.id;
});

const grant = (payload: unknown, as = admin.cookie) =>
  t.request({ method: 'POST', url: '/api/admin/user-messaging-accounts/create', as, payload: payload as object });

describe('grant, list and revoke', () => {
  it('grants access by email, lists it and revokes it', async () => {
    const created = await grant({ userEmail: normal.email.toUpperCase(), messagingAccountId: accountId });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ message: `${normal.email} now has access to Smile Studio.`, id: expect.any(Number) });
    const id = created.json().id as number;

    const list = await t.request({ method: 'GET', url: '/api/admin/user-messaging-accounts/list', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(secretToken);
    expect(list.json()).toEqual([{ id, user: { email: normal.email }, messagingAccountId: accountId, messagingAccount: { pageName: 'Smile Studio' } }]);

    // The grant shows on the user's own profile list.
    const mine = await t.request({ method: 'GET', url: `/api/user/${normal.email}/messaging-accounts`, as: normal.cookie });
    expect(mine.json().messagingAccounts.map((a: { messagingAccountId: number }) => a.messagingAccountId)).toEqual([accountId]);

    const revoked = await t.request({ method: 'DELETE', url: `/api/admin/user-messaging-accounts/${id}`, as: admin.cookie });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ message: 'User Messaging Account deleted successfully' });
    expect(await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.id, id))).toEqual([]);
    const again = await t.request({ method: 'DELETE', url: `/api/admin/user-messaging-accounts/${id}`, as: admin.cookie });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('PERMISSION_NOT_FOUND');
  });

  it('refuses a duplicate grant with 409', async () => {
    const user = await buildUser(t.ctx);
    expect((await grant({ userEmail: user.email, messagingAccountId: accountId })).statusCode).toBe(201);
    const dup = await grant({ userEmail: user.email, messagingAccountId: accountId });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'PERMISSION_EXISTS', error: `${user.email} already has access to Smile Studio.` });
  });

  it('answers 404 naming the email when no such user exists, and 404 for an unknown account', async () => {
    const noUser = await grant({ userEmail: 'nobody@example.com', messagingAccountId: accountId });
    expect(noUser.statusCode).toBe(404);
    expect(noUser.json()).toMatchObject({ code: 'USER_NOT_FOUND', error: expect.stringContaining('No user with email nobody@example.com') });
    const noAccount = await grant({ userEmail: normal.email, messagingAccountId: 999_999 });
    expect(noAccount.statusCode).toBe(404);
    expect(noAccount.json().code).toBe('MESSAGING_ACCOUNT_NOT_FOUND');
  });

  it.each([
    [{ userEmail: 'not-an-email', messagingAccountId: 1 }, 'Email is not valid'],
    [{ userEmail: '', messagingAccountId: 1 }, 'Email is required'],
    [{ userEmail: 'a@example.com', messagingAccountId: '1' }, 'messagingAccountId'],
    [{ userEmail: 'a@example.com' }, 'messagingAccountId'],
    [{ userEmail: 'a@example.com', messagingAccountId: 0 }, 'Messaging account is required'],
  ])('answers 400 for %j', async (payload, text) => {
    const res = await grant(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(text);
  });

  it('answers 400 for malformed JSON and a bad id', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/user-messaging-accounts/create', as: admin.cookie, json: '{"userEmail"' });
    expect(res.statusCode).toBe(400);
    expect((await t.request({ method: 'DELETE', url: '/api/admin/user-messaging-accounts/x', as: admin.cookie })).statusCode).toBe(400);
  });
});

describe('permissions need ADMIN', () => {
  it.each([
    { method: 'GET', url: '/api/admin/user-messaging-accounts/list' },
    { method: 'POST', url: '/api/admin/user-messaging-accounts/create', payload: { userEmail: 'a@example.com', messagingAccountId: 1 } },
    { method: 'DELETE', url: '/api/admin/user-messaging-accounts/1' },
  ] as const)('$method $url is 401 anonymous and 403 NORMAL', async (call) => {
    expect((await t.request({ ...call })).statusCode).toBe(401);
    expect((await t.request({ ...call, as: normal.cookie })).statusCode).toBe(403);
  });

  it('a NORMAL user cannot grant themselves access', async () => {
    const res = await grant({ userEmail: normal.email, messagingAccountId: accountId }, normal.cookie);
    expect(res.statusCode).toBe(403);
    const rows = await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.userId, normal.id));
    expect(rows).toEqual([]);
  });
});
