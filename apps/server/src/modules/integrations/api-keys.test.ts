import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.ts';
import { apiKeys } from '../../db/schema/index.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { buildConversationType } from '../../test/conversation-factories.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';

/** API keys (issue 27): creation, hashed storage, scopes, revocation on every instance, last use, rate limit. */
const t = useTestApp({ env: { API_KEY_RATE_LIMIT: '1000' } });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

async function createKey(scopes: string[], name = 'Zapier'): Promise<{ id: number; key: string }> {
  const res = await t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name, scopes } });
  expect(res.statusCode).toBe(201);
  return res.json();
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let typeId: number;
beforeAll(async () => {
  typeId = (await buildConversationType(t.ctx)).id;
});

describe('managing keys', () => {
  it('shows the key once, stores only its hash, and lists prefix, scopes, creator and times', async () => {
    const created = await createKey(['conversations:read'], 'Sheets');
    expect(created.key).toMatch(/^sak_[A-Za-z0-9_-]{40,}$/);
    const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row.keyHash).toBe(sha256Hex(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const list = await t.request({ method: 'GET', url: '/api/admin/api-keys', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    const shown = list.json().find((k: { id: number }) => k.id === created.id);
    expect(shown).toMatchObject({ name: 'Sheets', scopes: ['conversations:read'], createdBy: { id: admin.id, email: admin.email }, lastUsedAt: null, revokedAt: null });
    expect(created.key.startsWith(shown.prefix)).toBe(true);
    expect(JSON.stringify(list.json())).not.toContain(created.key);
  });

  it('refuses bad input (400), strangers (401), NORMAL users (403) and unknown ids (404)', async () => {
    expect((await t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name: 'x', scopes: ['everything'] } })).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name: '', scopes: ['calls:write'] } })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/admin/api-keys' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/api-keys', as: normal.cookie })).statusCode).toBe(403);
    const missing = await t.request({ method: 'DELETE', url: '/api/admin/api-keys/999999', as: admin.cookie });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('API_KEY_NOT_FOUND');
  });

  it('a key cannot manage keys (an operation not open to keys)', async () => {
    const { key } = await createKey(['conversations:read', 'conversations:write', 'calls:write', 'playbooks:write', 'analytics:read']);
    const res = await t.request({ method: 'GET', url: '/api/admin/api-keys', headers: bearer(key) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('API_KEY_NOT_ALLOWED');
  });
});

describe('using a key', () => {
  it('an unknown key is 401 API_KEY_INVALID, whatever cookie comes with it', async () => {
    const res = await t.request({ method: 'GET', url: '/api/conversation/list', as: admin.cookie, headers: bearer('sak_nope') });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('API_KEY_INVALID');
  });

  it('each scope allows its calls and refuses the others with 403 naming the scope', async () => {
    const read = await createKey(['conversations:read']);
    const write = await createKey(['conversations:write']);
    const calls = await createKey(['calls:write']);
    const playbooks = await createKey(['playbooks:write']);
    const analytics = await createKey(['analytics:read']);
    const list = (key: string) => t.request({ method: 'GET', url: '/api/conversation/list', headers: bearer(key) });
    const start = (key: string) => t.request({ method: 'POST', url: '/api/conversation/new', headers: bearer(key), payload: { conversationTypeId: typeId } });
    const call = (key: string) => t.request({ method: 'POST', url: '/api/admin/call/+15005550006', headers: bearer(key), payload: { conversationTypeId: typeId } });
    const phases = (key: string) => t.request({ method: 'GET', url: `/api/admin/conversation-phase/${typeId}/list`, headers: bearer(key) });
    const prices = (key: string) => t.request({ method: 'GET', url: '/api/admin/pricing/conversation?systemPromptLength=100&userPromptLength=100&messagesLength=50&messagesPerMinute=2', headers: bearer(key) });

    expect((await list(read.key)).statusCode).toBe(200);
    expect((await start(write.key)).statusCode).toBe(201);
    expect((await phases(playbooks.key)).statusCode).toBe(200);
    expect((await prices(analytics.key)).statusCode).toBe(200);
    // The call endpoint answers by its own rules past the scope check (no Twilio account here: not a 403).
    const placed = await call(calls.key);
    expect([401, 403]).not.toContain(placed.statusCode);

    for (const [res, scope] of [
      [await list(write.key), 'conversations:read'],
      [await start(read.key), 'conversations:write'],
      [await call(read.key), 'calls:write'],
      [await phases(read.key), 'playbooks:write'],
      [await prices(playbooks.key), 'analytics:read'],
    ] as const) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'API_KEY_SCOPE_MISSING' });
      expect(res.json().error).toContain(scope);
    }
  });

  it('acts as its creator: a NORMAL creator’s key gets no admin route', async () => {
    const key = await t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name: 'n', scopes: ['analytics:read'] } });
    const { id, key: plain } = key.json();
    await t.ctx.db.update(apiKeys).set({ createdBy: normal.id }).where(eq(apiKeys.id, id));
    const res = await t.request({ method: 'GET', url: '/api/admin/pricing/conversation', headers: bearer(plain) });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
    const me = await t.request({ method: 'POST', url: '/api/user/get-session', headers: bearer(plain) });
    expect(me.statusCode).toBe(200);
    expect(JSON.stringify(me.json())).toContain(normal.email);
  });

  it('works from a foreign Origin (the browser-only refusal does not apply to keys)', async () => {
    const { key } = await createKey(['conversations:write']);
    const res = await t.request({
      method: 'POST',
      url: '/api/conversation/new',
      headers: { ...bearer(key), origin: 'https://zapier.example' },
      payload: { conversationTypeId: typeId },
    });
    expect(res.statusCode).toBe(201);
    // A cookie from a foreign Origin is still refused.
    const cookie = await t.request({ method: 'POST', url: '/api/conversation/new', as: admin.cookie, headers: { origin: 'https://evil.example' }, payload: { conversationTypeId: typeId } });
    expect(cookie.statusCode).toBe(403);
  });

  it('records the last use', async () => {
    const { id, key } = await createKey(['conversations:read']);
    await t.request({ method: 'GET', url: '/api/conversation/list', headers: bearer(key) });
    const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, id));
    expect(row.lastUsedAt).not.toBeNull();
    expect(Date.now() - row.lastUsedAt!.getTime()).toBeLessThan(60_000);
  });
});

describe('revocation on every instance', () => {
  let second: FastifyInstance;
  beforeAll(async () => {
    // A second app on the same database: another instance behind the same load balancer.
    second = (await buildApp({ config: t.ctx.config, database: t.ctx.database })).app;
    await second.ready();
  });
  afterAll(() => second?.close());

  it('a revoked key is refused at once by both instances', async () => {
    const { id, key } = await createKey(['conversations:read']);
    expect((await second.inject({ method: 'GET', url: '/api/conversation/list', headers: bearer(key) })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/api/admin/api-keys/${id}`, as: admin.cookie })).statusCode).toBe(200);
    for (const app of [t.app, second]) {
      const res = await app.inject({ method: 'GET', url: '/api/conversation/list', headers: bearer(key) });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('API_KEY_INVALID');
    }
    const list = await t.request({ method: 'GET', url: '/api/admin/api-keys', as: admin.cookie });
    expect(list.json().find((k: { id: number }) => k.id === id).revokedAt).not.toBeNull();
  });
});

describe('rate limit per key', () => {
  it('answers 429 past API_KEY_RATE_LIMIT requests a minute, for that key only', async () => {
    t.ctx.config.API_KEY_RATE_LIMIT = 3;
    try {
      const a = await createKey(['conversations:read']);
      const b = await createKey(['conversations:read']);
      const get = (key: string) => t.request({ method: 'GET', url: '/api/conversation/list', headers: bearer(key) });
      for (let i = 0; i < 3; i++) expect((await get(a.key)).statusCode).toBe(200);
      const limited = await get(a.key);
      expect(limited.statusCode).toBe(429);
      expect(limited.json().code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get(b.key)).statusCode).toBe(200);
    } finally {
      t.ctx.config.API_KEY_RATE_LIMIT = 1000;
    }
  });
});

describe('OpenAPI', () => {
  it('declares the bearer scheme and each operation’s scopes', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/docs/json' })).json();
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const list = doc.paths['/api/conversation/list'].get;
    expect(list['x-api-key-scopes']).toEqual(['conversations:read']);
    expect(list.security).toContainEqual({ apiKey: [] });
    expect(doc.paths['/api/admin/call/{phone}'].post['x-api-key-scopes']).toEqual(['calls:write']);
    expect(doc.paths['/api/admin/api-keys'].post['x-api-key-scopes']).toBeUndefined();
  });
});
