import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationTypes } from '../../db/schema/index.ts';
import { buildTestApp } from '../../test/build-test-app.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { buildAdmin, buildUser, type TestUser } from '../../test/factories.ts';
import { GHL_FAKE_PIPELINES, startGhlFake } from '../../test/fakes/ghl-fake.ts';
import { ghlWaits } from './ghl.client.ts';

let admin: TestUser;
let normal: TestUser;
/** Every log line of the services (GoHighLevel client included), to prove no token is ever logged. */
const logLines: string[] = [];
/** Every answer body of this file, to prove no token is ever answered. */
const answers: string[] = [];
const OWN_KEY = 'pit-own-type-token-91c2e4d8';

const fake = useFake(() => startGhlFake({ seedCount: 25 }));
const t = useTestApp({ env: () => fake.env() });
beforeAll(async () => {
  t.ctx.log = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  admin = await buildAdmin(t.ctx);
  normal = await buildUser(t.ctx);
});
afterAll(async () => {
  // The secrets appear in no answer and no log line of the whole file.
  for (const text of [...answers, ...logLines]) {
    expect(text).not.toContain(fake.apiKey);
    expect(text).not.toContain(OWN_KEY);
  }
});
beforeEach(() => {
  fake.requests.length = 0;
});

/** GET as the admin, or as `as` (null: anonymous). */
async function call(url: string, as: string | null = admin.cookie) {
  const res = await t.request({ method: 'GET', url, as: as ?? undefined });
  answers.push(res.body);
  return res;
}

async function createType(config: string): Promise<number> {
  const [row] = await t.ctx.db
    .insert(conversationTypes)
    .values({ title: 'CRM type', rolePrompt: 'You sell solar.', errorPrompt: 'Sorry.', config: '{}' })
    .returning({ id: conversationTypes.id });
  const res = await t.request({
    method: 'POST',
    url: `/api/admin/conversation-type/${row.id}/config`,
    as: admin.cookie,
    payload: config,
    headers: { 'content-type': 'text/plain' },
  });
  answers.push(res.body);
  expect(res.statusCode, res.body).toBe(200);
  return row.id;
}

const contactsUrl = (id: number, query: Record<string, string | number>) =>
  `/api/admin/conversation-type/${id}/pipeline/contacts?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;

describe('access', () => {
  it('is ADMIN only: 401 anonymous, 403 NORMAL', async () => {
    const id = await createType('"GHL"');
    for (const url of [`/api/admin/conversation-type/${id}/pipelines`, contactsUrl(id, { pipelineId: 'pl-solar' })]) {
      expect((await call(url, null)).statusCode).toBe(401);
      expect((await call(url, normal.cookie)).statusCode).toBe(403);
    }
    expect(fake.requests).toEqual([]);
  });

  it('answers 404 for an unknown type, 400 for a bad id or a type not linked to a CRM', async () => {
    const unknown = await call('/api/admin/conversation-type/999999/pipelines');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
    expect((await call('/api/admin/conversation-type/abc/pipelines')).statusCode).toBe(400);
    const plain = await createType('{"model":"gpt-4o"}');
    const notLinked = await call(`/api/admin/conversation-type/${plain}/pipelines`);
    expect(notLinked.statusCode).toBe(400);
    expect(notLinked.json()).toMatchObject({ code: 'CRM_NOT_LINKED' });
    expect((await call(contactsUrl(plain, { pipelineId: 'pl-solar' }))).json().code).toBe('CRM_NOT_LINKED');
  });
});

describe('pipelines and contacts of a bare "GHL" type (GHL_API_KEY, GHL_LOCATION_ID)', () => {
  it('lists pipelines with stages, calling GoHighLevel with its Bearer token, Version header and location', async () => {
    const id = await createType('"GHL"');
    const res = await call(`/api/admin/conversation-type/${id}/pipelines`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pipelines).toEqual(GHL_FAKE_PIPELINES);
    const [request] = fake.requests;
    expect(request.path).toBe('/opportunities/pipelines');
    expect(request.query).toEqual({ locationId: fake.locationId });
    expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(request.headers.version).toBe('2021-07-28');
  });

  it('pages a stage forward across three pages with the cursor, and back with a stored earlier one', async () => {
    const id = await createType('"GHL"');
    const page1 = await call(contactsUrl(id, { pipelineId: 'pl-solar', stageId: 'st-new', limit: 10 }));
    expect(page1.statusCode, page1.body).toBe(200);
    const first = page1.json();
    expect(first.opportunities).toHaveLength(10);
    expect(first.opportunities[0]).toEqual({ id: 'opp-01', contact: { id: 'ct-01', name: 'Contact 01', phone: '+15550000001' } });
    expect(first.opportunities[6].contact).toEqual({ id: 'ct-07', name: 'Contact 07', phone: null });
    expect(first.meta).toMatchObject({ total: 25, startAfterId: 'opp-10' });
    expect(fake.requests[0].query).toEqual({ location_id: fake.locationId, pipeline_id: 'pl-solar', pipeline_stage_id: 'st-new', limit: '10' });

    const page2 = (await call(contactsUrl(id, { pipelineId: 'pl-solar', stageId: 'st-new', limit: 10, startAfter: first.meta.startAfter, startAfterId: first.meta.startAfterId }))).json();
    expect(page2.opportunities.map((o: { id: string }) => o.id)).toEqual(Array.from({ length: 10 }, (_, i) => `opp-${String(i + 11).padStart(2, '0')}`));
    expect(fake.requests[1].query).toMatchObject({ startAfter: String(first.meta.startAfter), startAfterId: 'opp-10' });

    const page3 = (await call(contactsUrl(id, { pipelineId: 'pl-solar', stageId: 'st-new', limit: 10, startAfter: page2.meta.startAfter, startAfterId: page2.meta.startAfterId }))).json();
    expect(page3.opportunities.map((o: { id: string }) => o.id)).toEqual(['opp-21', 'opp-22', 'opp-23', 'opp-24', 'opp-25']);
    // The last page has no cursor: Next is disabled from the answer alone.
    expect(page3.meta).toEqual({ total: 25, startAfter: null, startAfterId: null });

    // Previous from page 3 = page 2 again, with the cursor stored when page 2 was opened.
    const back = (await call(contactsUrl(id, { pipelineId: 'pl-solar', stageId: 'st-new', limit: 10, startAfter: first.meta.startAfter, startAfterId: first.meta.startAfterId }))).json();
    expect(back).toEqual(page2);
  });

  it('uses the page size (20), and lists the whole pipeline without a stage', async () => {
    const id = await createType('"GHL"');
    const twenty = (await call(contactsUrl(id, { pipelineId: 'pl-solar', stageId: 'st-new', limit: 20 }))).json();
    expect(twenty.opportunities).toHaveLength(20);
    const whole = (await call(contactsUrl(id, { pipelineId: 'pl-solar', limit: 20 }))).json();
    expect(whole.meta.total).toBe(26);
    expect(fake.requests[1].query.pipeline_stage_id).toBeUndefined();
  });

  it('answers 400 naming the field for a bad query', async () => {
    const id = await createType('"GHL"');
    const bad: Record<string, string | number>[] = [
      {},
      { pipelineId: '' },
      { pipelineId: 'pl solar' },
      { pipelineId: 'pl-solar', limit: 0 },
      { pipelineId: 'pl-solar', limit: 101 },
      { pipelineId: 'pl-solar', limit: 'ten' },
      { pipelineId: 'pl-solar', startAfter: '1759276800000' },
      { pipelineId: 'pl-solar', startAfter: 'yesterday', startAfterId: 'opp-10' },
    ];
    for (const query of bad) {
      const res = await call(contactsUrl(id, query));
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
    }
    expect((await call(contactsUrl(id, {}))).json().error).toContain('pipelineId');
    expect(fake.requests).toEqual([]);
  });

  it('turns GoHighLevel errors into clear answers: 422 → 400, 401 → 502, 5xx → 502, never a 500', async () => {
    const id = await createType('"GHL"');
    const unknownPipeline = await call(contactsUrl(id, { pipelineId: 'pl-nope' }));
    expect(unknownPipeline.statusCode).toBe(400);
    expect(unknownPipeline.json()).toEqual({ code: 'CRM_REJECTED', error: 'GoHighLevel rejected the request: pipeline_id must be a valid id' });
    fake.failNext(401);
    const refused = await call(`/api/admin/conversation-type/${id}/pipelines`);
    expect(refused.statusCode).toBe(502);
    expect(refused.json().code).toBe('CRM_AUTH_FAILED');
    expect(refused.json().error).toContain('Invalid JWT');
    fake.failNext(500, 3);
    const down = await call(`/api/admin/conversation-type/${id}/pipelines`);
    expect(down.statusCode).toBe(502);
    expect(down.json().code).toBe('CRM_UNAVAILABLE');
    // Reads are retried on 5xx: three attempts in all.
    expect(fake.requests.filter((r) => r.path === '/opportunities/pipelines')).toHaveLength(4);
  });

  it('retries a 429 after the wait its rate-limit headers ask for (the 10 s window too), and answers 429 when the wait is longer', async () => {
    const waits: number[] = [];
    const realSleep = ghlWaits.sleep;
    ghlWaits.sleep = async (ms: number) => void waits.push(ms);
    try {
      const id = await createType('"GHL"');
      fake.failNext(429, 1, { retryAfterIntervalMs: 20 });
      const retried = await call(`/api/admin/conversation-type/${id}/pipelines`);
      expect(retried.statusCode, retried.body).toBe(200);
      expect(fake.requests).toHaveLength(2);

      // GoHighLevel's documented burst window: 100 requests per 10 s. The user sees no error.
      fake.requests.length = 0;
      waits.length = 0;
      fake.failNext(429, 1, { retryAfterIntervalMs: 10_000 });
      const windowed = await call(`/api/admin/conversation-type/${id}/pipelines`);
      expect(windowed.statusCode, windowed.body).toBe(200);
      expect(waits).toEqual([10_000]);
      expect(fake.requests).toHaveLength(2);

      fake.requests.length = 0;
      fake.failNext(429, 1, { retryAfterIntervalMs: 60_000 });
      const limited = await call(`/api/admin/conversation-type/${id}/pipelines`);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({
        code: 'CRM_RATE_LIMITED',
        error: "GoHighLevel's rate limit (100 requests per 10 seconds) was reached. Please try again in 60 seconds.",
      });
      expect(fake.requests).toHaveLength(1);
    } finally {
      ghlWaits.sleep = realSleep;
    }
  });
});

describe('a type with its own credentials: {"crm":"GHL","locationId","apiKey"}', () => {
  it('stores the apiKey sealed, answers it masked everywhere, keeps it when the mask is saved back', async () => {
    const own = await startGhlFake({ apiKey: OWN_KEY, locationId: 'loc-own' });
    try {
      // GHL_API_URL is the environment's fake; point the type's calls at the second fake through a type of its own.
      t.ctx.config.GHL_API_URL = own.baseUrl;
      const config = `{\n  "crm": "GHL",\n  "locationId": "loc-own",\n  "apiKey": "${OWN_KEY}",\n  "stageOnOutcome": { "ended": "st-appointment" }\n}`;
      const id = await createType(config);
      const [stored] = await t.ctx.db.select({ config: conversationTypes.config }).from(conversationTypes).where(eq(conversationTypes.id, id));
      expect(stored.config).not.toContain(OWN_KEY);
      expect(stored.config).toMatch(/"apiKey": "sealed:v1\./);
      expect(stored.config.startsWith('{\n  "crm": "GHL",\n  "locationId": "loc-own",')).toBe(true);

      const masked = config.replace(OWN_KEY, `••••${OWN_KEY.slice(-4)}`);
      const detail = await call(`/api/conversation-type/${id}`);
      expect(detail.json().config).toBe(masked);
      const list = await call('/api/conversation-type/listt');
      expect(list.json().find((x: { id: number }) => x.id === id).config).toBe(masked);

      // The key works against GoHighLevel with the type's own location.
      const pipelines = await call(`/api/admin/conversation-type/${id}/pipelines`);
      expect(pipelines.statusCode, pipelines.body).toBe(200);
      expect(own.requests[0].headers.authorization).toBe(`Bearer ${OWN_KEY}`);
      expect(own.requests[0].query).toEqual({ locationId: 'loc-own' });

      // Saving the masked text back (the config editor's round trip) keeps the stored key.
      const resave = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: masked.replace('"ended"', '"needsHuman": "st-human", "ended"'), headers: { 'content-type': 'text/plain' } });
      expect(resave.statusCode, resave.body).toBe(200);
      expect((await call(`/api/admin/conversation-type/${id}/pipelines`)).statusCode).toBe(200);
      expect(own.requests.at(-1)?.headers.authorization).toBe(`Bearer ${OWN_KEY}`);

      // Saving through the type form (create-edit with config) seals and masks the same way.
      const form = await t.request({
        method: 'POST',
        url: '/api/admin/conversation-type/create-edit',
        as: admin.cookie,
        payload: { id, rolePrompt: 'You sell solar.', errorPrompt: 'Sorry.', config: masked },
      });
      answers.push(form.body);
      expect(form.statusCode, form.body).toBe(200);
      expect((await call(`/api/conversation-type/${id}`)).json().config).toBe(masked);

      // A masked value that is not the stored key's is refused (it would silently lose the key).
      const wrongMask = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: config.replace(OWN_KEY, '••••zzzz'), headers: { 'content-type': 'text/plain' } });
      expect(wrongMask.statusCode).toBe(400);
      expect(wrongMask.json().error).toContain('apiKey');

      // A new key replaces the old one; a wrong key is GoHighLevel's 401, answered 502 without the key.
      await createTypeConfig(id, config.replace(OWN_KEY, 'pit-wrong-token-0000'));
      const refused = await call(`/api/admin/conversation-type/${id}/pipelines`);
      expect(refused.statusCode).toBe(502);
      expect(refused.json().code).toBe('CRM_AUTH_FAILED');
      expect(refused.body).not.toContain('pit-wrong-token');
      expect((await call(`/api/conversation-type/${id}`)).json().config).toContain('"apiKey": "••••0000"');
    } finally {
      t.ctx.config.GHL_API_URL = fake.baseUrl;
      await own.close();
    }
  });

  it('refuses a badly shaped CRM config with 400 naming the field', async () => {
    const [row] = await t.ctx.db.insert(conversationTypes).values({ rolePrompt: 'r', errorPrompt: 'e' }).returning({ id: conversationTypes.id });
    const cases: [string, string][] = [
      ['{"crm":"GHL","apiKey":""}', 'apiKey'],
      ['{"crm":"GHL","locationId":5}', 'locationId'],
      ['{"crm":"GHL","stageOnOutcome":{"won":"st-1"}}', 'stageOnOutcome'],
      ['{"crm":"GHL","stageOnOutcome":{"ended":""}}', 'stageOnOutcome.ended'],
      ['{"crm":"HubSpot"}', 'crm'],
      [`{"crm":"GHL","apiKey":"${'k'.repeat(2001)}"}`, 'apiKey'],
    ];
    for (const [config, field] of cases) {
      const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${row.id}/config`, as: admin.cookie, payload: config, headers: { 'content-type': 'text/plain' } });
      expect(res.statusCode, config).toBe(400);
      expect(res.json().error, config).toContain(field);
    }
  });

  it('answers 400 CRM_NOT_CONFIGURED when neither the config nor the environment has the credentials', async () => {
    const bare = await buildTestApp({ GHL_API_URL: fake.baseUrl });
    try {
      const boss = await buildAdmin(bare.ctx);
      const [row] = await bare.ctx.db.insert(conversationTypes).values({ rolePrompt: 'r', errorPrompt: 'e', config: '"GHL"' }).returning({ id: conversationTypes.id });
      const res = await bare.request({ method: 'GET', url: `/api/admin/conversation-type/${row.id}/pipelines`, as: boss.cookie });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'CRM_NOT_CONFIGURED' });
      expect(res.json().error).toContain('GHL_API_KEY');
    } finally {
      await bare.close();
    }
  });
});

async function createTypeConfig(id: number, config: string) {
  const res = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${id}/config`, as: admin.cookie, payload: config, headers: { 'content-type': 'text/plain' } });
  expect(res.statusCode, res.body).toBe(200);
}
