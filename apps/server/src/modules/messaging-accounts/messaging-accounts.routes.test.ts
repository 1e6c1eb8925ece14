import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  conversations,
  conversationTypes,
  messages,
  messagingAccounts,
  prospects,
  userMessagingAccounts,
} from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser } from '../../test/factories.ts';
import { recordingPath, recordingStorageKey } from '../../voice/urls.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { canAccessAccount, flagTokenRejected, grantedAccountIds, readAccessToken } from './access.ts';

let typeId: number;
const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
beforeAll(async () => {
  const [type] = await t.ctx.db
    .insert(conversationTypes)
    .values({ title: 'Dental clinic leads', rolePrompt: 'You sell teeth whitening.', errorPrompt: 'Apologise.' })
    .returning();
  typeId = type.id;
});

let tokenCounter = 0;
/** (type, pageId) is unique: every account gets its own page id unless a test names one. */
let pageCounter = 0;
/** A recognisable token per account, so a test can prove it never appears in a response. */
const newToken = () => `EAAG-secret-token-${Date.now()}-${++tokenCounter}-zz9Q`;

/** A page id of the shape the type's validation asks for (E.164 for Twilio, digits for WhatsApp). */
function defaultPageId(type: unknown): string {
  pageCounter += 1;
  if (type === 'TWILIO') return `+1555${String(pageCounter).padStart(7, '0')}`;
  if (type === 'WHATSAPP') return `${1065000000 + pageCounter}`;
  return `page-${pageCounter}`;
}

async function createAccount(overrides: Record<string, unknown> = {}) {
  const accessToken = (overrides.accessToken as string | undefined) ?? newToken();
  const res = await t.request({
    method: 'POST',
    url: '/api/admin/messaging-accounts/create-edit',
    as: admin.cookie,
    payload: { type: 'INSTAGRAM', accessToken, pageId: defaultPageId(overrides.type), pageName: 'Smile Studio', ...overrides },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().messagingAccount.id as number, accessToken };
}

async function storedRow(id: number) {
  const [row] = await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, id));
  return row;
}

describe('create and edit', () => {
  it('creates an account, seals the token and answers the spec message', async () => {
    const accessToken = newToken();
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/messaging-accounts/create-edit',
      as: admin.cookie,
      payload: { type: 'FACEBOOK', accessToken, pageId: '1789', pageName: 'Acme Page', expirationDate: '2030-12-31', conversationTypeId: typeId },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(accessToken);
    const body = res.json();
    expect(body).toEqual({ message: 'Account created or updated successfully', messagingAccount: { id: expect.any(Number) } });

    const row = await storedRow(body.messagingAccount.id);
    expect(row.accessTokenEncrypted).not.toContain(accessToken);
    expect(row.accessTokenEncrypted).toMatch(/^v1\./);
    expect(readAccessToken(t.ctx, row)).toBe(accessToken);
    // The creating ADMIN owns it (may delete it like a user who connected one).
    expect(row).toMatchObject({ type: 'FACEBOOK', pageId: '1789', pageName: 'Acme Page', conversationTypeId: typeId, config: '{}', createdByUserId: admin.id });
    expect(row.expirationDate?.toISOString()).toBe('2030-12-31T00:00:00.000Z');
  });

  it('reads one account with every column and a masked hint, never the token', async () => {
    const { id, accessToken } = await createAccount({ type: 'WHATSAPP', conversationTypeId: typeId, expirationDate: '2031-01-02T10:00:00Z' });
    const res = await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${id}`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(accessToken);
    expect(res.json()).toEqual({
      id,
      type: 'WHATSAPP',
      pageId: expect.any(String),
      pageName: 'Smile Studio',
      expirationDate: '2031-01-02T10:00:00.000Z',
      conversationTypeId: typeId,
      conversationType: { id: typeId, title: 'Dental clinic leads' },
      config: '{}',
      user_messaging_accounts: [],
      accessTokenSet: true,
      accessTokenHint: '••••zz9Q',
      reconnectNeeded: false,
    });
  });

  it('flags reconnectNeeded when Meta rejected the token or it has expired; a new token clears the rejection', async () => {
    const rejected = await createAccount({ expirationDate: '2031-01-01' });
    await flagTokenRejected(t.ctx, rejected.id);
    const expired = await createAccount({ expirationDate: '2020-01-01' });
    const view = async (id: number) => (await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${id}`, as: admin.cookie })).json();
    expect((await view(rejected.id)).reconnectNeeded).toBe(true);
    expect((await view(expired.id)).reconnectNeeded).toBe(true);
    const list = (await t.request({ method: 'GET', url: '/api/admin/messaging-accounts/list', as: admin.cookie })).json();
    expect(list.find((a: { id: number }) => a.id === rejected.id).reconnectNeeded).toBe(true);

    const res = await t.request({
      method: 'POST',
      url: '/api/admin/messaging-accounts/create-edit',
      as: admin.cookie,
      payload: { id: rejected.id, type: 'INSTAGRAM', accessToken: newToken(), pageId: 'p', pageName: 'Smile Studio' },
    });
    expect(res.statusCode).toBe(200);
    expect((await storedRow(rejected.id)).tokenRejectedAt).toBeNull();
    expect((await view(rejected.id)).reconnectNeeded).toBe(false);
  });

  it('edits the fields and keeps the token when none is sent; replaces it when one is', async () => {
    const { id, accessToken } = await createAccount({ conversationTypeId: typeId, expirationDate: '2030-01-01' });
    const before = await storedRow(id);
    for (const token of [undefined, '', null]) {
      const res = await t.request({
        method: 'POST',
        url: '/api/admin/messaging-accounts/create-edit',
        as: admin.cookie,
        payload: { id, type: 'TWILIO', accessToken: token, pageId: '+15550001', pageName: 'Phone line', expirationDate: null, conversationTypeId: null },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().messagingAccount).toEqual({ id });
    }
    const kept = await storedRow(id);
    expect(kept.accessTokenEncrypted).toBe(before.accessTokenEncrypted);
    expect(readAccessToken(t.ctx, kept)).toBe(accessToken);
    expect(kept).toMatchObject({ type: 'TWILIO', pageId: '+15550001', pageName: 'Phone line', expirationDate: null, conversationTypeId: null });

    const replacement = 'brand-new-token-9876';
    await t.request({
      method: 'POST',
      url: '/api/admin/messaging-accounts/create-edit',
      as: admin.cookie,
      payload: { id, type: 'TWILIO', accessToken: replacement, pageId: '+15550001', pageName: 'Phone line' },
    });
    const replaced = await storedRow(id);
    expect(replaced.accessTokenEncrypted).not.toContain(replacement);
    expect(readAccessToken(t.ctx, replaced)).toBe(replacement);
    const view = await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${id}`, as: admin.cookie });
    expect(view.json().accessTokenHint).toBe('••••9876');
  });

  // The code is VALIDATION_ERROR unless the row names another.
  it.each<[Record<string, unknown>, string, string?]>([
    [{ accessToken: '' }, 'Access token is required'],
    [{ accessToken: undefined }, 'Access token is required'],
    [{ pageId: '  ' }, 'Page id is required'],
    [{ pageName: '' }, 'Page name is required'],
    [{ type: 'TELEGRAM' }, 'Type must be one of'],
    [{ expirationDate: 'next tuesday' }, 'Expiration date must be an ISO date'],
    // Year 0 passes the ISO pattern but PostgreSQL has no year 0 (was a 500).
    [{ expirationDate: '0000-01-01' }, 'expirationDate'],
    [{ pageName: 'Page\u0000' }, 'pageName: must not contain the NUL character'],
    [{ conversationTypeId: 99999999999 }, 'conversationTypeId'],
    [{ conversationTypeId: 'abc' }, 'conversationTypeId'],
    [{ conversationTypeId: 999_999 }, 'no conversation type has id 999999', 'CONVERSATION_TYPE_NOT_FOUND'],
  ])('answers 400 for %j', async (overrides, text, code = 'VALIDATION_ERROR') => {
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/messaging-accounts/create-edit',
      as: admin.cookie,
      payload: { type: 'INSTAGRAM', accessToken: 'tok-12345', pageId: 'p', pageName: 'n', ...overrides },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, error: expect.stringContaining(text) });
  });

  it('answers 400 for malformed JSON and 404 when editing an unknown id', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/admin/messaging-accounts/create-edit', as: admin.cookie, json: '{"type":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_JSON');
    const missing = await t.request({
      method: 'POST',
      url: '/api/admin/messaging-accounts/create-edit',
      as: admin.cookie,
      payload: { id: 999_999, type: 'INSTAGRAM', pageId: 'p', pageName: 'n' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('MESSAGING_ACCOUNT_NOT_FOUND');
  });
});

describe('one account per (type, page id)', () => {
  const save = (payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/api/admin/messaging-accounts/create-edit', as: admin.cookie, payload });
  const taken = (pageId: string, type: string, id: number, pageName: string) => ({
    code: 'MESSAGING_ACCOUNT_EXISTS',
    error: `Page id ${pageId} is already used by another ${type} account (ID ${id}, "${pageName}"). Edit that account instead, or enter another page id.`,
  });
  const accountsWith = async (pageId: string) =>
    (await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.pageId, pageId))).map((a) => a.type).sort();

  it('refuses a second account of the type with the page id (409 naming the field), and allows it on another type', async () => {
    const first = await createAccount({ type: 'FACEBOOK', pageId: 'dup-page-1', pageName: 'First page' });
    const again = await save({ type: 'FACEBOOK', accessToken: newToken(), pageId: 'dup-page-1', pageName: 'Second page' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual(taken('dup-page-1', 'FACEBOOK', first.id, 'First page'));
    expect(await accountsWith('dup-page-1')).toEqual(['FACEBOOK']);

    const otherType = await save({ type: 'INSTAGRAM', accessToken: newToken(), pageId: 'dup-page-1', pageName: 'IG' });
    expect(otherType.statusCode).toBe(200);
    expect(await accountsWith('dup-page-1')).toEqual(['FACEBOOK', 'INSTAGRAM']);
  });

  it("refuses an edit to another account's page id and keeps the account as it was; saving its own page id is fine", async () => {
    const a = await createAccount({ type: 'TWILIO', pageId: '+15550100', pageName: 'Line A' });
    const b = await createAccount({ type: 'TWILIO', pageId: '+15550200', pageName: 'Line B' });
    const moved = await save({ id: b.id, type: 'TWILIO', pageId: '+15550100', pageName: 'Line B renamed' });
    expect(moved.statusCode).toBe(409);
    expect(moved.json()).toEqual(taken('+15550100', 'TWILIO', a.id, 'Line A'));
    expect(await storedRow(b.id)).toMatchObject({ pageId: '+15550200', pageName: 'Line B' });

    const same = await save({ id: a.id, type: 'TWILIO', pageId: '+15550100', pageName: 'Line A renamed' });
    expect(same.statusCode).toBe(200);
    expect(await storedRow(a.id)).toMatchObject({ pageId: '+15550100', pageName: 'Line A renamed' });
  });

  it('lets exactly one of two simultaneous creates of the same page win; the other gets 409, never 500', async () => {
    const results = await Promise.all(
      [1, 2].map((n) => save({ type: 'WHATSAPP', accessToken: newToken(), pageId: '106540352242977', pageName: `Number ${n}` })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.statusCode === 409)!.json().code).toBe('MESSAGING_ACCOUNT_EXISTS');
    expect(await accountsWith('106540352242977')).toEqual(['WHATSAPP']);
  });
});

describe('list', () => {
  it('lists accounts with users, conversation type and hints but no token', async () => {
    const { id, accessToken } = await createAccount({ conversationTypeId: typeId });
    await t.ctx.db.insert(userMessagingAccounts).values({ userId: normal.id, messagingAccountId: id });
    const res = await t.request({ method: 'GET', url: '/api/admin/messaging-accounts/list', as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(accessToken);
    expect(res.body).not.toContain('accessTokenEncrypted');
    const list = res.json() as { id: number }[];
    expect(list.map((a) => a.id)).toEqual([...list.map((a) => a.id)].sort((a, b) => a - b));
    const row = list.find((a) => a.id === id);
    expect(row).toMatchObject({
      conversationType: { id: typeId, title: 'Dental clinic leads' },
      user_messaging_accounts: [{ id: expect.any(Number), user: { email: normal.email } }],
      accessTokenSet: true,
      accessTokenHint: expect.stringMatching(/^••••/),
    });
  });

  it('shows a null hint (not an error) for a token sealed under another secret', async () => {
    const [row] = await t.ctx.db
      .insert(messagingAccounts)
      .values({ type: 'SMS_GATEWAY', accessTokenEncrypted: 'v1.AAAA.BBBB.CCCC', pageId: 'gw', pageName: 'Old gateway' })
      .returning();
    const res = await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${row.id}`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accessTokenSet: true, accessTokenHint: null });
  });
});

describe('config', () => {
  it('saves raw JSON text sent as application/json or text/plain', async () => {
    const { id } = await createAccount();
    const text = '{\n  "phoneNumberId": "1234",\n  "greeting": true\n}';
    for (const type of ['application/json', 'text/plain']) {
      const res = await t.request({
        method: 'POST',
        url: `/api/admin/messaging-accounts/${id}/config`,
        as: admin.cookie,
        payload: text,
        headers: { 'content-type': type },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ message: 'Configuration saved successfully.' });
    }
    expect((await storedRow(id)).config).toBe(text);
    const view = await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${id}`, as: admin.cookie });
    expect(view.json().config).toBe(text);
  });

  it.each([
    ['{"a":', 'not valid JSON', 'INVALID_JSON'],
    ['[1,2]', 'must be a JSON object', 'INVALID_CONFIG'],
    ['"GHL"', 'must be a JSON object', 'INVALID_CONFIG'],
    ['null', 'must be a JSON object', 'INVALID_CONFIG'],
    ['', 'empty', 'INVALID_JSON'],
  ])('answers 400 for %j and keeps the stored config', async (text, message, code) => {
    const { id } = await createAccount();
    const res = await t.request({ method: 'POST', url: `/api/admin/messaging-accounts/${id}/config`, as: admin.cookie, json: text });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, error: expect.stringContaining(message) });
    expect((await storedRow(id)).config).toBe('{}');
  });

  it.each([
    ['TWILIO', '{"accountSid":"00000000000000000000000000000001"}', 'accountSid: a Twilio Account SID starts with AC'],
    ['TWILIO', '{"accountSid":"AC123"}', 'accountSid'],
    ['TWILIO', '{"accountSid":42}', 'accountSid: must be a text value'],
    ['WHATSAPP', '{"wabaId":"WABA-1"}', 'wabaId'],
    ['WHATSAPP', '{"templates":{"outsideWindow":{"name":"x"}}}', 'templates.outsideWindow'],
    ['SMS_GATEWAY', '{"baseUrl":"ftp://gateway"}', 'baseUrl: must be an http(s) URL'],
    ['INSTAGRAM', '{"login":"google"}', 'login'],
  ])('validates a %s config field by field on save (%s)', async (type, text, message) => {
    const { id } = await createAccount({ type });
    const res = await t.request({ method: 'POST', url: `/api/admin/messaging-accounts/${id}/config`, as: admin.cookie, json: text });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_CONFIG', error: expect.stringContaining(message) });
    expect((await storedRow(id)).config).toBe('{}');
    const good = { TWILIO: '{"accountSid":"AC0123456789abcdef0123456789ABCDEF"}', WHATSAPP: '{"wabaId":"102290129340398","templates":{"outsideWindow":{"name":"follow_up","language":"en_US"}}}', SMS_GATEWAY: '{"baseUrl":"https://api.sms-gate.app/3rdparty/v1","signingKey":"k"}', INSTAGRAM: '{"login":"instagram"}' }[type]!;
    const ok = await t.request({ method: 'POST', url: `/api/admin/messaging-accounts/${id}/config`, as: admin.cookie, json: good });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('refuses a Twilio page id that is not an E.164 number and a WhatsApp page id that is not a phone number ID', async () => {
    for (const [type, pageId, message] of [
      ['TWILIO', '5550001', 'E.164'],
      ['WHATSAPP', '+1 555 000 1111', 'phone number ID'],
    ]) {
      const res = await t.request({ method: 'POST', url: '/api/admin/messaging-accounts/create-edit', as: admin.cookie, payload: { type, accessToken: newToken(), pageId, pageName: 'Line' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(message) });
    }
  });

  it('answers 404 for an unknown account and 400 for a non-numeric id', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/messaging-accounts/999999/config', as: admin.cookie, json: '{}' });
    expect(res.statusCode).toBe(404);
    const bad = await t.request({ method: 'GET', url: '/api/admin/messaging-accounts/abc', as: admin.cookie });
    expect(bad.statusCode).toBe(400);
    const missing = await t.request({ method: 'GET', url: '/api/admin/messaging-accounts/999999', as: admin.cookie });
    expect(missing.statusCode).toBe(404);
  });
});

describe('admin routes need ADMIN', () => {
  const adminCalls = [
    { method: 'GET', url: '/api/admin/messaging-accounts/list' },
    { method: 'GET', url: '/api/admin/messaging-accounts/1' },
    { method: 'POST', url: '/api/admin/messaging-accounts/create-edit', payload: { type: 'INSTAGRAM', accessToken: 'x', pageId: 'p', pageName: 'n' } },
    { method: 'POST', url: '/api/admin/messaging-accounts/1/config', json: '{}' },
  ] as const;
  it.each(adminCalls)('$method $url is 401 anonymous and 403 NORMAL', async (call) => {
    expect((await t.request({ ...call })).statusCode).toBe(401);
    const res = await t.request({ ...call, as: normal.cookie });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
  });
});

/** A prospect conversation with one message on `accountId`, as a channel would create it. */
async function conversationOn(accountId: number) {
  const [prospect] = await t.ctx.db.insert(prospects).values({ messagingAccountId: accountId, externalId: `ext-${Math.random()}` }).returning();
  const [conversation] = await t.ctx.db.insert(conversations).values({ prospectId: prospect.id, messagingAccountId: accountId, conversationTypeId: typeId }).returning();
  await t.ctx.db.insert(messages).values({ conversationId: conversation.id, role: 'PROSPECT', message: 'Hi there' });
  return conversation;
}

/** A call conversation on `accountId` whose recording was downloaded into our storage (voice/recording.job.ts). */
async function recordedCallOn(accountId: number, { storeFile = true } = {}) {
  const conversation = await conversationOn(accountId);
  await t.ctx.db
    .update(conversations)
    .set({ recordingUrl: recordingPath(conversation.uuid), recordingDuration: 3 })
    .where(eq(conversations.id, conversation.id));
  if (storeFile) {
    const storage = recordingStorage(t.ctx);
    const temp = path.join(storage.incomingDir, `${randomUUID()}.part`);
    await writeFile(temp, Buffer.from('ID3 fake mp3 bytes'));
    await storage.putFile(recordingStorageKey(conversation.uuid), temp, 'audio/mpeg');
    await rm(temp, { force: true });
    expect(await storage.size(recordingStorageKey(conversation.uuid))).not.toBeNull();
  }
  return conversation;
}

/** An account connected by a new user (`owner`), granted to that owner and to `normal`, with one conversation. */
async function ownedAndGrantedAccount() {
  const owner = await buildUser(t.ctx);
  const { id } = await createAccount();
  await t.ctx.db.update(messagingAccounts).set({ createdByUserId: owner.id }).where(eq(messagingAccounts.id, id));
  await t.ctx.db.insert(userMessagingAccounts).values([
    { userId: owner.id, messagingAccountId: id },
    { userId: normal.id, messagingAccountId: id },
  ]);
  return { owner, id, conversation: await conversationOn(id) };
}

const exists = async (conversationId: number) =>
  (await t.ctx.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, conversationId))).length === 1;

describe('DELETE /api/user/messaging-accounts/:messagingAccountId', () => {
  it("removes only the signed-in user's grant: the account, its conversations and other grants stay", async () => {
    const { owner, id, conversation } = await ownedAndGrantedAccount();

    const res = await t.request({ method: 'DELETE', url: `/api/user/messaging-accounts/${id}`, as: normal.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Account removed from your accounts' });
    const grants = await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, id));
    expect(grants.map((g) => g.userId)).toEqual([owner.id]);
    expect(await storedRow(id)).toBeDefined();
    expect(await exists(conversation.id)).toBe(true);
    expect(await canAccessAccount(t.ctx, { id: normal.id, email: normal.email, role: 'NORMAL' }, id)).toBe(false);

    // Removed already: nothing left to remove.
    const again = await t.request({ method: 'DELETE', url: `/api/user/messaging-accounts/${id}`, as: normal.cookie });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ code: 'PERMISSION_NOT_FOUND', error: 'This account is not among your accounts.' });
  });

  it('is described in the OpenAPI document with its parameter and answers', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/docs/json' })).json();
    const op = doc.paths['/api/user/messaging-accounts/{messagingAccountId}'].delete;
    expect(op.summary).toBe("Remove an account from the signed-in user's accounts");
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'messagingAccountId', in: 'path', required: true })]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(doc.paths['/api/user/{email}/messaging-accounts'].get.responses['200']).toBeDefined();
  });

  it('is 401 anonymous, 404 for an account not granted or unknown, 400 for a bad id', async () => {
    const { id } = await createAccount();
    await t.ctx.db.insert(userMessagingAccounts).values({ userId: normal.id, messagingAccountId: id });
    expect((await t.request({ method: 'DELETE', url: `/api/user/messaging-accounts/${id}` })).statusCode).toBe(401);
    const stranger = await buildUser(t.ctx);
    expect((await t.request({ method: 'DELETE', url: `/api/user/messaging-accounts/${id}`, as: stranger.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: '/api/user/messaging-accounts/999999', as: normal.cookie })).statusCode).toBe(404);
    const bad = await t.request({ method: 'DELETE', url: '/api/user/messaging-accounts/abc', as: normal.cookie });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_ERROR');
    expect(await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, id))).toHaveLength(1);
  });
});

describe('DELETE /api/messaging-accounts/:id', () => {
  it('as ADMIN deletes the account, its grants and its conversations, leaving other accounts alone', async () => {
    const doomed = await createAccount();
    const kept = await createAccount();
    await t.ctx.db.insert(userMessagingAccounts).values({ userId: normal.id, messagingAccountId: doomed.id });
    const lost = await conversationOn(doomed.id);
    const other = await conversationOn(kept.id);
    const [typeLinked] = await t.ctx.db
      .insert(conversationTypes)
      .values({ rolePrompt: 'r', errorPrompt: 'e', messagingAccountId: doomed.id })
      .returning();

    const res = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${doomed.id}`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Account deleted successfully' });

    expect(await storedRow(doomed.id)).toBeUndefined();
    expect(await exists(lost.id)).toBe(false);
    expect(await t.ctx.db.select().from(messages).where(eq(messages.conversationId, lost.id))).toEqual([]);
    expect(await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, doomed.id))).toEqual([]);
    expect(await exists(other.id)).toBe(true);
    expect(await storedRow(kept.id)).toBeDefined();
    const [type] = await t.ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, typeLinked.id));
    expect(type.messagingAccountId).toBeNull();
  });

  it("removes the call recordings of the account's conversations from storage, after the delete; a missing file is no error", async () => {
    const doomed = await createAccount({ type: 'TWILIO' });
    const kept = await createAccount({ type: 'TWILIO' });
    const recorded = await recordedCallOn(doomed.id);
    const fileLost = await recordedCallOn(doomed.id, { storeFile: false });
    const otherAccount = await recordedCallOn(kept.id);
    const storage = recordingStorage(t.ctx);

    const refused = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${doomed.id}`, as: normal.cookie });
    expect(refused.statusCode).toBe(403);
    expect(await storage.size(recordingStorageKey(recorded.uuid))).not.toBeNull();

    const res = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${doomed.id}`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(await exists(recorded.id)).toBe(false);
    expect(await exists(fileLost.id)).toBe(false);
    expect(await storage.size(recordingStorageKey(recorded.uuid))).toBeNull();
    expect(await storage.size(recordingStorageKey(otherAccount.uuid))).not.toBeNull();
  });

  it('lets the user who connected an account delete it; a user only granted it gets 403 and nothing changes', async () => {
    const { owner, id, conversation } = await ownedAndGrantedAccount();

    const refused = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${id}`, as: normal.cookie });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      code: 'NOT_ACCOUNT_OWNER',
      error: 'Only the person who connected this account or an administrator can delete it. You can remove it from your accounts instead.',
    });
    expect(await storedRow(id)).toBeDefined();
    expect(await exists(conversation.id)).toBe(true);
    expect(await t.ctx.db.select().from(userMessagingAccounts).where(eq(userMessagingAccounts.messagingAccountId, id))).toHaveLength(2);

    const ok = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${id}`, as: owner.cookie });
    expect(ok.statusCode).toBe(200);
    expect(await storedRow(id)).toBeUndefined();
    expect(await exists(conversation.id)).toBe(false);
  });

  it('refuses a NORMAL user an account neither connected by nor granted to them (403 FORBIDDEN)', async () => {
    const foreign = await createAccount();
    const conversation = await conversationOn(foreign.id);
    const refused = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${foreign.id}`, as: normal.cookie });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    expect(await storedRow(foreign.id)).toBeDefined();
    expect(await exists(conversation.id)).toBe(true);
  });

  it('lets an ADMIN delete an account another ADMIN created', async () => {
    const other = await buildAdmin(t.ctx);
    const { id } = await createAccount();
    expect((await storedRow(id)).createdByUserId).toBe(admin.id);
    expect((await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${id}`, as: other.cookie })).statusCode).toBe(200);
  });

  it('is 401 anonymous, 404 for an unknown id, 400 for a bad id', async () => {
    const { id } = await createAccount();
    expect((await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${id}` })).statusCode).toBe(401);
    expect(await storedRow(id)).toBeDefined();
    const missing = await t.request({ method: 'DELETE', url: '/api/messaging-accounts/999999', as: admin.cookie });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('MESSAGING_ACCOUNT_NOT_FOUND');
    expect((await t.request({ method: 'DELETE', url: '/api/messaging-accounts/0', as: admin.cookie })).statusCode).toBe(400);
  });

  it('refuses a delete from a foreign Origin', async () => {
    const { id } = await createAccount();
    const res = await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${id}`, as: admin.cookie, headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(403);
    expect(await storedRow(id)).toBeDefined();
  });
});

describe('access helpers', () => {
  it('grant everything to ADMIN and only granted accounts to a NORMAL user', async () => {
    const user = await buildUser(t.ctx);
    const a = await createAccount();
    const b = await createAccount();
    expect(await grantedAccountIds(t.ctx, user)).toEqual([]);
    await t.ctx.db.insert(userMessagingAccounts).values({ userId: user.id, messagingAccountId: b.id });
    expect(await grantedAccountIds(t.ctx, user)).toEqual([b.id]);
    expect(await grantedAccountIds(t.ctx, admin)).toBe('all');
    expect(await canAccessAccount(t.ctx, user, b.id)).toBe(true);
    expect(await canAccessAccount(t.ctx, user, a.id)).toBe(false);
    expect(await canAccessAccount(t.ctx, admin, a.id)).toBe(true);
  });
});
