import type { JobRunner } from '../jobs/runner.ts';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { recordAgentError } from '../conversations/unanswered.ts';
import { graphError, networkError, twilioError, httpError } from '../channels/senders/errors.ts';
import { jobs, unansweredConversations } from '../db/schema/index.ts';
import { buildPlaybook, unansweredOf } from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { captureLogger } from '../test/capture-logger.ts';
import { buildAdmin } from '../test/factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { redactDeep, redactText, registerSecrets } from './redact.ts';

/**
 * Issue 29 item 5: one redaction for every log line and every stored error. Each known secret shape goes
 * through each logging path (the app's logger configuration, captured) and each stored-error path (the
 * unanswered monitor, the outbox's and a job's last error, the channel error records, the API answer).
 */
const META_TOKEN = 'EAABwzLixnjYBAOZBZCZAfh3Kq9ZCZBq7ZB9x1yZA2';
const OPENAI_KEY = 'sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56';
const TWILIO_TOKEN = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const GHL_KEY = 'pit-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const BEARER = 'opaque-bearer-value-7781';
const QUERY_TOKEN = 'plain-query-token-5512';
const PASSWORD = 'hunter2-correct-horse';
const KNOWN = 'some-configured-secret-value-0042';

/** Each shape inside the text a provider or our code puts it in. */
const SHAPES: [string, string, string][] = [
  ['Graph "Malformed access token"', `(#190) Malformed access token ${META_TOKEN}`, META_TOKEN],
  ['Graph token without the phrase', `token ${META_TOKEN} expired`, META_TOKEN],
  ['OpenAI "Incorrect API key provided"', `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, OPENAI_KEY],
  ['OpenAI masked echo', 'Incorrect API key provided: sk-proj-****************************Op56.', 'sk-proj-****'],
  ['Twilio auth token', `Authenticate failed for AC${'1'.repeat(32)}:${TWILIO_TOKEN}`, TWILIO_TOKEN],
  ['Bearer header', `Authorization: Bearer ${BEARER}`, BEARER],
  ['access_token query parameter', `GET https://graph.facebook.com/v21.0/me?fields=name&access_token=${QUERY_TOKEN}&x=1`, QUERY_TOKEN],
  ['GoHighLevel pit- key', `GoHighLevel refused ${GHL_KEY}`, GHL_KEY],
  ['JWT', `session ${JWT} rejected`, JWT],
  ['password in a JSON text', `{"email":"a@b.co","password":"${PASSWORD}"}`, PASSWORD],
  ['password in free text', `login failed, password: ${PASSWORD}9`, PASSWORD],
  ['URL with credentials', `connect postgres://app:${PASSWORD}@db:5432/sales`, PASSWORD],
  ['a registered secret by value', `upstream said ${KNOWN} is wrong`, KNOWN],
];


const fake = useFake(new OpenAiFake());
beforeAll(async () => {
  registerSecrets(KNOWN);
});
const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '0' }) });
beforeEach(() => fake.reset());

describe('redactText', () => {
  it.each(SHAPES)('removes %s', (_name, text, secret) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it('leaves ids, uuids and readable provider sentences alone', () => {
    const text = `CallSid CA${'a'.repeat(32)} conversation 3f1c2b4a-1d2e-4f5a-8b9c-0d1e2f3a4b5c: Error validating access token: Session has expired`;
    expect(redactText(text)).toBe(text);
  });

  it('keeps a JSON line valid', () => {
    const line = JSON.stringify({ msg: SHAPES.map(([, text]) => text).join(' | '), token: null, nested: { apiKey: 'x' } });
    const out = redactText(line);
    expect(() => JSON.parse(out)).not.toThrow();
    for (const [, , secret] of SHAPES) expect(out).not.toContain(secret);
  });
});

describe('every log line', () => {
  it('drops each shape from messages, fields, errors, causes and nested records', () => {
    const { log, lines } = captureLogger('debug');
    for (const [, text] of SHAPES) {
      log.warn({ accountId: 1, metaCode: 190, reason: text }, 'page name lookup failed'); // meta-auth paths
      log.error({ err: new Error(text, { cause: new Error(text) }) }, 'unhandled error'); // error handler, jobs
      log.warn({ error: { message: text, response: JSON.stringify({ error: { message: text } }), url: text } }, 'channel send failed'); // records
      log.info(`free text: ${text}`);
      log.warn({ path: '/contacts', status: 401, message: text }, 'GoHighLevel request failed');
    }
    expect(lines).toHaveLength(SHAPES.length * 5);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      for (const [, , secret] of SHAPES) expect(line).not.toContain(secret);
    }
  });
});

describe('every stored error', () => {
  it('the unanswered monitor: an LLM error echoing the key is stored and shown without it', async () => {
    const type = await buildPlaybook(t.ctx, { errorPrompt: 'Sorry, we will write back soon.' });
    const { id } = await startWebConversation(t.ctx, type.id);
    fake.on('*', { status: 401, body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}. Also ${META_TOKEN}`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    await receiveProspectMessage(t.ctx, id, 'hello');
    await t.ctx.jobs.drain();
    const stored = (await unansweredOf(t.ctx, id)).errors;
    expect(JSON.parse(stored)[0]).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(stored).toContain('[redacted]');
    expect(stored).not.toContain(OPENAI_KEY);
    expect(stored).not.toContain(META_TOKEN);
  });

  it('recordAgentError stores every shape redacted, and the admin list hides what older rows kept', async () => {
    const type = await buildPlaybook(t.ctx);
    const { id } = await startWebConversation(t.ctx, type.id);
    for (const [, text] of SHAPES) {
      await recordAgentError(t.ctx, id, { message: text, type: 'test', code: null, status: null, method: 'GET', url: text, response: text, details: text });
    }
    const stored = (await unansweredOf(t.ctx, id)).errors;
    for (const [, , secret] of SHAPES) expect(stored).not.toContain(secret);

    // A row written before redaction existed.
    await t.ctx.db.update(unansweredConversations).set({ errors: JSON.stringify([{ message: SHAPES[0][1], response: SHAPES[2][1] }]) }).where(eq(unansweredConversations.conversationId, id));
    const admin = await buildAdmin(t.ctx);
    const list = await t.request({ method: 'GET', url: '/api/admin/unanswered-conversations/listt', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(META_TOKEN);
    expect(list.body).not.toContain(OPENAI_KEY);
  });

  it('channel error records (outbox last_error, the monitor) carry no shape', () => {
    const call = { method: 'POST', url: `https://graph.facebook.com/v21.0/me/messages?access_token=${QUERY_TOKEN}`, secrets: ['page-token-not-shaped'] };
    const records = [
      graphError(call, 400, JSON.stringify({ error: { message: `Malformed access token ${META_TOKEN}`, code: 190, fbtrace_id: 'x' } })).record,
      graphError(call, 400, JSON.stringify({ error: { message: 'Invalid token page-token-not-shaped', code: 190 } })).record,
      twilioError(call, { status: 401, code: 20003, message: `Authenticate ${TWILIO_TOKEN}` }).record,
      httpError(call, 401, JSON.stringify({ message: `bad ${JWT} or Bearer ${BEARER}` }), 'sms-gateway').record,
      networkError(call, new Error(`connect ECONNREFUSED ${GHL_KEY}`)).record,
    ];
    const text = JSON.stringify(records);
    for (const secret of [META_TOKEN, QUERY_TOKEN, TWILIO_TOKEN, JWT, BEARER, GHL_KEY, 'page-token-not-shaped']) expect(text).not.toContain(secret);
  });

  it("a job's last error", async () => {
    const name = 'test.redaction';
    t.ctx.jobs.register({
      name,
      payload: z.object({}),
      async handler() {
        throw new Error(`GoHighLevel said ${GHL_KEY}; OpenAI said Incorrect API key provided: ${OPENAI_KEY}`);
      },
    });
    // A job of the test's own, outside the typed definitions (jobs/index.ts).
    const jobId = await (t.ctx.jobs as unknown as JobRunner<Record<string, object>>).enqueue(name, {}, { maxAttempts: 1 });
    await t.ctx.jobs.drain();
    const [row] = await t.ctx.db.select().from(jobs).where(eq(jobs.id, jobId!));
    expect(row.lastError).toContain('[redacted]');
    expect(row.lastError).not.toContain(GHL_KEY);
    expect(row.lastError).not.toContain(OPENAI_KEY);
  });

  it('redactDeep redacts strings at any depth and keeps other values', () => {
    expect(redactDeep({ a: [{ b: `x ${JWT}` }], n: 3, z: null })).toEqual({ a: [{ b: 'x [redacted]' }], n: 3, z: null });
  });
});
