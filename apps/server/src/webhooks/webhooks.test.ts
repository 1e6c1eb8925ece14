import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../context.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../db/schema/index.ts';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { WebhookReceiver } from '../test/fakes/webhook-receiver.ts';
import { claimLikeTheRunner, expireLease } from '../test/job-scenarios.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { recordConversationEvent, WEBHOOK_DELIVER_JOB } from '../lib/webhook-outbox.ts';
import { webhookDeliverJob } from './deliver.job.ts';
import { verifyWebhook } from './signature.ts';

/** Outbound webhooks (issue 27): the outbox, signatures, order, retries, crashes, SSRF and auto-disable. */
const llm = useFake(new OpenAiFake());
const receiver = useFake(new WebhookReceiver());
const t = useTestApp({ env: () => llm.env({ LLM_MAX_RETRIES: '1', WEBHOOK_DISABLE_AFTER_FAILURES: '4' }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

const ALL = ['conversation.started', 'message.created', 'conversation.phase_changed', 'conversation.needs_human', 'conversation.ended', 'lead.updated', 'meeting.booked', 'call.started', 'call.ended'];

async function subscribe(events = ALL, url = receiver.url): Promise<{ id: number; secret: string }> {
  const res = await t.request({ method: 'POST', url: '/api/admin/webhooks', as: admin.cookie, payload: { url, events } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

/** Runs every delivery job to its end, retry times included (a test does not wait for a backoff). */
async function settle(ctx: AppContext = t.ctx): Promise<void> {
  for (let round = 0; round < 100; round++) {
    await ctx.db.execute(sql`update webhook_deliveries set next_attempt_at = now() where status = 'PENDING' and next_attempt_at > now()`);
    await ctx.db.execute(sql`update jobs set run_at = now() where name = ${WEBHOOK_DELIVER_JOB} and status = 'pending' and run_at > now()`);
    await ctx.jobs.drain();
    const [{ n }] = (
      (await ctx.db.execute(sql`
        select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.status = 'PENDING' and e.enabled`)) as unknown as { rows: { n: number }[] }
    ).rows;
    if (n === 0) return;
  }
  throw new Error('webhook deliveries did not settle');
}

async function disableAll(): Promise<void> {
  await t.ctx.db.update(webhookEndpoints).set({ enabled: false });
}

beforeEach(async () => {
  llm.reset();
  receiver.clear();
  receiver.answer();
  await disableAll();
  await t.ctx.jobs.drain();
});

describe('endpoints', () => {
  it('answers the secret once, lists without it, and refuses bad input, strangers and NORMAL users', async () => {
    const created = await subscribe(['message.created']);
    expect(created.secret).toMatch(/^whsec_/);
    const list = await t.request({ method: 'GET', url: '/api/admin/webhooks', as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(JSON.stringify(list.json())).not.toContain(created.secret);
    expect(list.json().find((e: { id: number }) => e.id === created.id)).toMatchObject({ url: receiver.url, events: ['message.created'], enabled: true });

    const bad = await t.request({ method: 'POST', url: '/api/admin/webhooks', as: admin.cookie, payload: { url: receiver.url, events: ['everything'] } });
    expect(bad.statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: '/api/admin/webhooks', payload: { url: receiver.url, events: ALL } })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/webhooks', as: normal.cookie })).statusCode).toBe(403);
    const missing = await t.request({ method: 'GET', url: '/api/admin/webhooks/999999/deliveries', as: admin.cookie });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('refuses private, loopback and link-local URLs unless ALLOW_PRIVATE_URLS (SSRF), at save and at delivery', async () => {
    const { id } = await subscribe(['conversation.started']);
    t.ctx.config.ALLOW_PRIVATE_URLS = false;
    try {
      for (const url of ['http://127.0.0.1:8080/x', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/', 'http://[::1]/', 'ftp://example.com/']) {
        const res = await t.request({ method: 'POST', url: '/api/admin/webhooks', as: admin.cookie, payload: { url, events: ALL } });
        expect(res.statusCode, url).toBe(400);
        if (!url.startsWith('ftp')) expect(res.json().code).toBe('WEBHOOK_URL_REFUSED');
      }
      // Saved while allowed, refused when it is sent.
      await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
      await t.ctx.jobs.drain();
      expect(receiver.received).toHaveLength(0);
      const [delivery] = await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
      expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1 });
      expect(delivery.lastError).toContain('private');
    } finally {
      t.ctx.config.ALLOW_PRIVATE_URLS = true;
    }
  });
});

describe('deliveries', () => {
  it('writes nothing when no endpoint listens', async () => {
    const before = await t.ctx.db.$count(webhookEvents);
    const { id } = await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
    await receiveProspectMessage(t.ctx, id, 'hello');
    expect(await t.ctx.db.$count(webhookEvents)).toBe(before);
  });

  it('a conversation driven to its end: every event once, signed, in order, with a stable id', async () => {
    const { secret } = await subscribe();
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    llm.on('transition_decision', { json: { advance: true, reason: 'yes' } });
    llm.on('draft_reply', { json: { reply: 'Great, tell me more.', needsHuman: false, reason: '' } });
    llm.on('conversation_rating', { json: { rating: 8, reason: 'good' } });
    const { id, uuid } = await startWebConversation(t.ctx, type.id);
    await receiveProspectMessage(t.ctx, id, 'I want widgets');
    await t.ctx.jobs.drain();
    await receiveProspectMessage(t.ctx, id, 'deal');
    await t.ctx.jobs.drain();
    await settle();

    const types = receiver.received.map((r) => r.json.type);
    expect(types).toEqual([
      'conversation.started',
      'message.created', // the initial message
      'message.created', // I want widgets
      'conversation.phase_changed', // 0 → 1
      'message.created', // the reply
      'message.created', // deal
      'message.created', // the closing reply (issue 24 item 7)
      'conversation.phase_changed', // 1 → 2
      'conversation.ended',
    ]);
    for (const r of receiver.received) {
      expect(verifyWebhook(secret, r.body, String(r.headers['x-webhook-signature']))).toBe(true);
      expect(r.headers['x-webhook-id']).toBe(r.json.id);
      expect(r.headers['x-webhook-event']).toBe(r.json.type);
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(new Set(receiver.received.map((r) => r.json.id)).size).toBe(receiver.received.length);
    expect(receiver.received[0].json.data.conversation).toMatchObject({ id, uuid, phase: 0 });
    const texts = receiver.ofType('message.created').map((r) => (r.json.data.message as { role: string; message: string }));
    expect(texts.map((m) => m.role)).toEqual(['AGENT', 'PROSPECT', 'AGENT', 'PROSPECT', 'AGENT']);
    expect(texts[1].message).toBe('I want widgets');
    expect(receiver.ofType('conversation.phase_changed').map((r) => [r.json.data.previousPhase, r.json.data.newPhase])).toEqual([[0, 1], [1, 2]]);
    expect(receiver.ofType('conversation.ended')[0].json.data).toMatchObject({ outcome: 'ended', conversation: { id, phase: 2 } });
  });

  it('a person’s phase change (PATCH) is a phase_changed event by a person; phase N also ends the conversation', async () => {
    await subscribe(['conversation.phase_changed', 'conversation.ended']);
    const { id } = await startWebConversation(t.ctx, (await buildPlaybook(t.ctx, { phases: 2 })).id);
    const res = await t.request({ method: 'PATCH', url: `/api/conversation/${id}`, as: admin.cookie, payload: { phase: 2 } });
    expect(res.statusCode).toBe(200);
    await settle();
    expect(receiver.received.map((r) => [r.json.type, r.json.data.by])).toEqual([
      ['conversation.phase_changed', 'person'],
      ['conversation.ended', 'person'],
    ]);
    expect(receiver.received[0].json.data).toMatchObject({ previousPhase: 0, newPhase: 2, conversation: { id, phase: 2 } });
  });

  it('lead.updated: when the agent or a person changes a lead field, with every field and the changed keys; the same value again is not a change', async () => {
    const { secret } = await subscribe(['lead.updated']);
    const leadFields = [
      { key: 'email', label: 'Email', type: 'email' },
      { key: 'company', label: 'Company', type: 'text' },
    ];
    const { id } = await startWebConversation(t.ctx, (await buildPlaybook(t.ctx, { phases: 3, config: { leadFields } })).id);
    llm.once('tools', { toolCalls: [{ name: 'update_lead', arguments: { email: 'Ada@Example.com' } }] });
    await receiveProspectMessage(t.ctx, id, 'I am ada@example.com');
    await t.ctx.jobs.drain();
    const put = (fields: Record<string, unknown>) => t.request({ method: 'PUT', url: `/api/conversation/${id}/lead-fields`, as: admin.cookie, payload: { fields } });
    expect((await put({ company: 'Acme' })).statusCode).toBe(200);
    expect((await put({ company: 'Acme' })).statusCode).toBe(200); // unchanged: no event
    expect((await put({ email: null })).statusCode).toBe(200);
    expect((await put({ company: 'x'.repeat(10), email: 'not an email' })).statusCode).toBe(400); // rolled back: no event
    await settle();

    expect(receiver.received.map((r) => r.json.type)).toEqual(['lead.updated', 'lead.updated', 'lead.updated']);
    expect(receiver.received.map((r) => r.json.data)).toMatchObject([
      { conversation: { id }, leadFields: { email: 'ada@example.com' }, changed: ['email'], by: 'agent' },
      { conversation: { id }, leadFields: { email: 'ada@example.com', company: 'Acme' }, changed: ['company'], by: 'person' },
      { conversation: { id }, leadFields: { company: 'Acme' }, changed: ['email'], by: 'person' },
    ]);
    for (const delivery of receiver.received) {
      expect(verifyWebhook(secret, delivery.body, String(delivery.headers['x-webhook-signature']))).toBe(true);
      expect(delivery.headers['x-webhook-event']).toBe('lead.updated');
    }
  });

  it('keeps a conversation’s order through a burst, per endpoint', async () => {
    await subscribe(['message.created']);
    const { id } = await startWebConversation(t.ctx, (await buildPlaybook(t.ctx, { initialMessage: null })).id);
    const sent = Array.from({ length: 15 }, (_, i) => `message ${i}`);
    await Promise.all(sent.map((text) => receiveProspectMessage(t.ctx, id, text)));
    await settle();
    const got = receiver.ofType('message.created').map((r) => r.json.data.message as { id: number; role: string; message: string });
    expect(got.filter((m) => m.role === 'PROSPECT')).toHaveLength(15);
    const ids = got.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('retries with backoff through a receiver that fails, then recovers; later events wait behind it', async () => {
    await subscribe(['conversation.started', 'message.created']);
    receiver.answer(500, 503, 500);
    const { id } = await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
    await t.ctx.jobs.drain();
    const [first] = await t.ctx.db.select().from(webhookDeliveries).orderBy(sql`${webhookDeliveries.id} desc`).limit(2).then((rows) => rows.reverse());
    expect(first).toMatchObject({ status: 'PENDING', attempts: 1, responseCode: 500 });
    // Backoff: the next attempt is 5 to 10 s away.
    const waitMs = first.nextAttemptAt.getTime() - Date.now();
    expect(waitMs).toBeGreaterThan(4_000);
    expect(waitMs).toBeLessThanOrEqual(10_000);
    await settle();
    const types = receiver.received.map((r) => r.json.type);
    // Three failures of the first event, then both in order.
    expect(types).toEqual(['conversation.started', 'conversation.started', 'conversation.started', 'conversation.started', 'message.created']);
    expect(new Set(receiver.ofType('conversation.started').map((r) => r.json.id)).size).toBe(1);
    const rows = await t.ctx.db.select().from(webhookDeliveries).where(sql`${webhookDeliveries.id} >= ${first.id}`).orderBy(webhookDeliveries.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['DELIVERED', 4], ['DELIVERED', 1]]);
    void id;
  });

  it('a worker killed after the receiver answered loses nothing: the delivery is sent again with the same id', async () => {
    await subscribe(['conversation.started']);
    await startWebConversation(t.ctx, (await buildPlaybook(t.ctx, { initialMessage: null })).id);
    const [job] = (
      (await t.ctx.db.execute(sql`select id, payload from jobs where name = ${WEBHOOK_DELIVER_JOB} and status = 'pending' order by id desc limit 1`)) as unknown as {
        rows: { id: number; payload: { deliveryId: number } }[];
      }
    ).rows;
    await claimLikeTheRunner(t.ctx, Number(job.id));
    // The process dies on the statement that marks the delivery DELIVERED.
    const dying = Object.create(t.ctx) as AppContext;
    dying.db = Object.create(t.ctx.db);
    dying.db.execute = ((query: Parameters<AppContext['db']['execute']>[0]) => {
      const text = JSON.stringify(query);
      if (text.includes("status = 'DELIVERED'")) return Promise.reject(new Error('kill -9'));
      return t.ctx.db.execute(query);
    }) as AppContext['db']['execute'];
    await expect(webhookDeliverJob.handler(dying, { deliveryId: Number(job.payload.deliveryId) }, { id: Number(job.id), name: WEBHOOK_DELIVER_JOB, attempts: 1, maxAttempts: 25 })).rejects.toThrow('kill -9');
    expect(receiver.received).toHaveLength(1);
    await expireLease(t.ctx, Number(job.id));
    await t.ctx.jobs.drain();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].json.id).toBe(receiver.received[0].json.id);
    const [delivery] = await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, Number(job.payload.deliveryId)));
    expect(delivery.status).toBe('DELIVERED');
  });

  it('a change that rolls back writes no event', async () => {
    await subscribe(['conversation.started']);
    const before = await t.ctx.db.$count(webhookEvents);
    const type = await buildPlaybook(t.ctx);
    await expect(
      t.ctx.db.transaction(async (tx) => {
        const inserted = await tx.execute(sql`insert into conversations (conversation_type_id, phase) values (${type.id}, 0) returning id`);
        const conversationId = Number((inserted as unknown as { rows: { id: number }[] }).rows[0].id);
        expect(await recordConversationEvent(tx, 'conversation.started', conversationId)).toBe(true);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.ctx.db.$count(webhookEvents)).toBe(before);
  });

  it('disables an endpoint that keeps failing, with a notice; enabling it again sends what waited', async () => {
    const { id } = await subscribe(['conversation.started']);
    receiver.answer(500, 500, 500, 500);
    await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
    await settle();
    const [endpoint] = await t.ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(endpoint.enabled).toBe(false);
    expect(endpoint.disabledReason).toContain('4 failed deliveries in a row');
    expect(receiver.received).toHaveLength(4);
    // New events are not queued for a disabled endpoint.
    await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
    expect(await t.ctx.db.$count(webhookDeliveries, eq(webhookDeliveries.endpointId, id))).toBe(1);

    const enabled = await t.request({ method: 'PATCH', url: `/api/admin/webhooks/${id}`, as: admin.cookie, payload: { enabled: true } });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
    await settle();
    expect(receiver.received).toHaveLength(5);
    expect(receiver.received[4].json.id).toBe(receiver.received[0].json.id);
  });

  it('lists recent deliveries, resends one (same event id) and sends a test event', async () => {
    const { id, secret } = await subscribe(['conversation.started']);
    await startWebConversation(t.ctx, (await buildPlaybook(t.ctx)).id);
    await settle();
    const list = await t.request({ method: 'GET', url: `/api/admin/webhooks/${id}/deliveries`, as: admin.cookie });
    expect(list.statusCode).toBe(200);
    const [delivery] = list.json();
    expect(delivery).toMatchObject({ type: 'conversation.started', status: 'DELIVERED', attempts: 1, responseCode: 200 });
    expect(delivery.responseMs).toBeGreaterThanOrEqual(0);

    const resent = await t.request({ method: 'POST', url: `/api/admin/webhooks/${id}/deliveries/${delivery.id}/resend`, as: admin.cookie });
    expect(resent.statusCode).toBe(202);
    const test = await t.request({ method: 'POST', url: `/api/admin/webhooks/${id}/test`, as: admin.cookie });
    expect(test.statusCode).toBe(202);
    await settle();
    // The resend and the test event are two deliveries that may run side by side: either may arrive first.
    const [first, ...after] = receiver.received;
    expect(first.json.type).toBe('conversation.started');
    expect(after.map((r) => r.json.type).sort()).toEqual(['conversation.started', 'webhook.test']);
    expect(after.find((r) => r.json.type === 'conversation.started')?.json.id).toBe(delivery.eventId);
    const testEvent = after.find((r) => r.json.type === 'webhook.test')!;
    expect(verifyWebhook(secret, testEvent.body, String(testEvent.headers['x-webhook-signature']))).toBe(true);
    expect((await t.request({ method: 'POST', url: `/api/admin/webhooks/${id}/deliveries/999999/resend`, as: admin.cookie })).statusCode).toBe(404);
  });
});
