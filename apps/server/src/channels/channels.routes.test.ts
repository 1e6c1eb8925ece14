import { createHmac } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations, webhookInbox } from '../db/schema/index.ts';
import { usePlaybook, useTestApp, useUser } from '../test/use-test-app.ts';
import {
  buildChannelAccount,
  conversationOfProspect,
  countRows,
  META_APP_SECRET,
  META_VERIFY_TOKEN,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  postTwilioSms,
  PUBLIC_URL,
  smsGatewayEvent,
  whatsAppPayload,
  CHANNEL_ENV,
} from '../test/channel-factories.ts';

/**
 * The webhook endpoints' guard rails (no provider is reached here; sends go nowhere): the handshake, every
 * channel's signature check (missing → 401, wrong → 403, nothing stored), bad input, the simulator's rules.
 * Sending and the whole round trip are in channels.delivery.test.ts.
 */
describe('channel webhooks', () => {

  const t = useTestApp({ env: { ...CHANNEL_ENV, INSTAGRAM_APP_SECRET: 'ig-app-secret' } });
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);
  const playbook = usePlaybook(t);

  const adminSimulator = () => ({ as: admin.cookie, headers: { origin: PUBLIC_URL } });

  describe('GET /api/meta-api/webhook (subscription handshake)', () => {
    it('answers the challenge as plain text when the verify token matches', async () => {
      const res = await t.request({ method: 'GET', url: `/api/meta-api/webhook?hub.mode=subscribe&hub.verify_token=${META_VERIFY_TOKEN}&hub.challenge=1158201444` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe('1158201444');
    });

    it.each([
      ['a wrong token', `hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`],
      ['another mode', `hub.mode=unsubscribe&hub.verify_token=${META_VERIFY_TOKEN}&hub.challenge=1`],
      ['no parameters', ''],
    ])('answers 403 for %s', async (_name, query) => {
      const res = await t.request({ method: 'GET', url: `/api/meta-api/webhook?${query}` });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('POST /api/meta-api/webhook signatures', () => {
    it('stores a signed event once and answers at once; a byte-identical redelivery stores nothing more', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', conversationTypeId: playbook.id });
      const before = await countRows(t.ctx, 'webhook_inbox');
      const payload = metaMessagePayload('instagram', account.pageId, 'igsid-1', 'mid-sig-1', 'Hi');
      const first = await postMeta(t, payload);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ received: true });
      expect((await postMeta(t, payload)).statusCode).toBe(200);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before + 1);
    });

    it('accepts the Instagram-login app secret too', async () => {
      const res = await postMeta(t, metaMessagePayload('instagram', 'ig-unknown', 'u', 'mid-ig-secret', 'Hi'), 'ig-app-secret');
      expect(res.statusCode).toBe(200);
    });

    it('refuses a missing signature with 401 and a wrong one with 403, storing nothing', async () => {
      const before = await countRows(t.ctx, 'webhook_inbox');
      const payload = JSON.stringify(metaMessagePayload('page', 'p1', 'u1', 'mid-unsigned', 'Hi'));
      const unsigned = await t.request({ method: 'POST', url: '/api/meta-api/webhook', json: payload });
      expect(unsigned.statusCode).toBe(401);
      expect(unsigned.json().code).toBe('SIGNATURE_MISSING');
      const wrong = await postMeta(t, JSON.parse(payload), 'not-the-secret');
      expect(wrong.statusCode).toBe(403);
      const tampered = await t.request({
        method: 'POST',
        url: '/api/meta-api/webhook',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) },
        payload,
      });
      expect(tampered.statusCode).toBe(403);
      // A signed-in NORMAL user, or an ADMIN without a browser Origin, is not the simulator.
      const asNormal = await t.request({ method: 'POST', url: '/api/meta-api/webhook', as: normal.cookie, headers: { 'content-type': 'application/json', origin: PUBLIC_URL }, payload });
      expect(asNormal.statusCode).toBe(401);
      const adminNoOrigin = await t.request({ method: 'POST', url: '/api/meta-api/webhook', as: admin.cookie, json: payload });
      expect(adminNoOrigin.statusCode).toBe(401);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before);
    });

    it('answers 400 to malformed JSON, a payload without entry[] and an empty body', async () => {
      const sign = (body: string) => `sha256=${createHmac('sha256', META_APP_SECRET).update(body).digest('hex')}`;
      for (const body of ['{"object":', '{"object":"page"}', '[]']) {
        const res = await t.request({ method: 'POST', url: '/api/meta-api/webhook', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) }, payload: body });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toEqual(expect.any(String));
      }
    });

    it('refuses a body over the limit with 413', async () => {
      const res = await postMeta(t, metaMessagePayload('page', 'p', 'u', 'big', 'x'.repeat(1_100_000)));
      expect(res.statusCode).toBe(413);
    });
  });

  describe('POST /api/twilio/sms', () => {
    it('stores a correctly signed SMS and answers empty TwiML; 403 for a wrong signature or an unknown number', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550001000', token: 'twilio-auth-token', config: { accountSid: 'AC123' } });
      const params = { MessageSid: 'SMsig1', AccountSid: 'AC123', From: '+15551112222', To: account.pageId, Body: 'Hello', NumMedia: '0' };
      const ok = await postTwilioSms(t, 'twilio-auth-token', params);
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toMatch(/^text\/xml/);
      expect(ok.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
      const before = await countRows(t.ctx, 'webhook_inbox');
      expect((await postTwilioSms(t, 'twilio-auth-token', { ...params, MessageSid: 'SMsig2' }, 'wrong-token')).statusCode).toBe(403);
      expect((await postTwilioSms(t, 'twilio-auth-token', { ...params, MessageSid: 'SMsig3', To: '+19999999999' })).statusCode).toBe(403);
      const unsigned = await t.request({ method: 'POST', url: '/api/twilio/sms', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(params).toString() });
      expect(unsigned.statusCode).toBe(403);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before);
      const missing = await postTwilioSms(t, 'twilio-auth-token', { From: '+1', Body: 'x' });
      expect(missing.statusCode).toBe(400);
    });
  });

  describe('POST /api/sms-gateway/webhook', () => {
    it('stores a signed sms:received and delivery reports, skips other events, and refuses bad signatures and stale timestamps', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: 'device-sig', token: 'user:pass', config: { baseUrl: 'http://127.0.0.1:9', signingKey: 'sign-key' } });
      const before = await countRows(t.ctx, 'webhook_inbox');
      const event = smsGatewayEvent(account.pageId, '+34600111222', 'evt-sig-1', 'Hola');
      expect((await postSmsGateway(t, 'sign-key', event)).json()).toEqual({ received: true });
      expect((await postSmsGateway(t, 'sign-key', { ...event, event: 'system:ping', id: 'evt-sig-2' })).statusCode).toBe(200);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before + 1);
      // A report on one of our sends is kept for its delivery state (delivery-states-channels.test.ts).
      expect((await postSmsGateway(t, 'sign-key', { ...event, event: 'sms:delivered', id: 'evt-sig-6' })).statusCode).toBe(200);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before + 2);
      expect((await postSmsGateway(t, 'other-key', { ...event, id: 'evt-sig-3' })).statusCode).toBe(403);
      const stale = await postSmsGateway(t, 'sign-key', { ...event, id: 'evt-sig-4' }, Math.floor(Date.now() / 1000) - 600);
      expect(stale.statusCode).toBe(403);
      expect(stale.json().error).toMatch(/5 minutes/);
      expect((await postSmsGateway(t, 'sign-key', { ...event, id: 'evt-sig-5', deviceId: 'unknown-device' })).statusCode).toBe(403);
      expect(await countRows(t.ctx, 'webhook_inbox')).toBe(before + 2);
    });
  });

  describe('the webhook simulator', () => {
    it('accepts an unsigned Meta payload from an ADMIN page, marks it simulated, and the reply is never sent', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', conversationTypeId: playbook.id });
      const res = await t.request({ method: 'POST', url: '/api/meta-api/webhook', ...adminSimulator(), payload: metaMessagePayload('instagram', account.pageId, 'sim-user', 'm_sim_1', 'Hi there') });
      expect(res.statusCode).toBe(200);
      const [row] = await t.ctx.db.select().from(webhookInbox).where(sql`${webhookInbox.payload}::text like '%m_sim_1%'`);
      expect(row.simulated).toBe(true);
      await t.ctx.jobs.drain();
      const found = await conversationOfProspect(t.ctx, account.id, 'sim-user');
      expect(found!.prospect.simulated).toBe(true);
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
      expect(found!.outbox.map((o) => o.status)).toEqual(['SIMULATED']);
    });

    it('simulates Twilio and SMS gateway messages through the admin endpoints', async () => {
      const twilioAccount = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550002000', config: { accountSid: 'ACsim' }, conversationTypeId: playbook.id });
      const gateway = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: 'device-sim', config: { signingKey: 'k' }, conversationTypeId: playbook.id });
      const twilioRes = await t.request({
        method: 'POST',
        url: '/api/admin/webhook-simulation/twilio',
        ...adminSimulator(),
        payload: { MessageSid: 'SMsim1', AccountSid: 'ACsim', From: '+15553334444', To: twilioAccount.pageId, Body: 'Price?', NumMedia: '0' },
      });
      expect(twilioRes.statusCode).toBe(200);
      const gatewayRes = await t.request({ method: 'POST', url: '/api/admin/webhook-simulation/sms-gateway', ...adminSimulator(), payload: smsGatewayEvent(gateway.pageId, '+34600999888', 'sim-evt-1', 'Hola') });
      expect(gatewayRes.statusCode).toBe(200);
      await t.ctx.jobs.drain();
      for (const [accountId, sender] of [[twilioAccount.id, '+15553334444'], [gateway.id, '+34600999888']] as const) {
        const found = await conversationOfProspect(t.ctx, accountId, sender);
        expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
        expect(found!.outbox.map((o) => o.status)).toEqual(['SIMULATED']);
      }
    });

    it('needs an ADMIN (401 anonymous, 403 NORMAL), valid fields (400), a known account (400), and refuses a real prospect (409)', async () => {
      const url = '/api/admin/webhook-simulation/twilio';
      const twilioAccount = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550003000', token: 'tok', config: { accountSid: 'AC1' }, conversationTypeId: playbook.id });
      const payload = { MessageSid: 'SMsim9', From: '+15557778888', To: twilioAccount.pageId, Body: 'Hi' };
      expect((await t.request({ method: 'POST', url, payload })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url, as: normal.cookie, payload })).statusCode).toBe(403);
      const invalid = await t.request({ method: 'POST', url, ...adminSimulator(), payload: { ...payload, Body: '' } });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().error).toMatch(/Body/);
      const noAccount = await t.request({ method: 'POST', url, ...adminSimulator(), payload: { ...payload, To: '+10000000000' } });
      expect(noAccount.statusCode).toBe(400);
      expect(noAccount.json().error).toBe('No TWILIO messaging account has the id +10000000000.');
      // A real (signed) message from this number makes it a real prospect: simulating it is refused.
      expect((await postTwilioSms(t, 'tok', { MessageSid: 'SMreal1', From: '+15557778888', To: twilioAccount.pageId, Body: 'real' })).statusCode).toBe(200);
      await t.ctx.jobs.drain();
      const real = await t.request({ method: 'POST', url, ...adminSimulator(), payload });
      expect(real.statusCode).toBe(409);
      const gatewayBad = await t.request({ method: 'POST', url: '/api/admin/webhook-simulation/sms-gateway', ...adminSimulator(), payload: { deviceId: 'x', event: 'sms:sent', id: '1', payload: {} } });
      expect(gatewayBad.statusCode).toBe(400);
    });
  });

  describe('POST /api/admin/conversation/{id}/messages/rebuild guard rails', () => {
    it('answers 401, 403, 404, and 409 for channels without a history API, simulated prospects and web chats', async () => {
      const twilioAccount = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550004000', config: { accountSid: 'AC4' }, conversationTypeId: playbook.id });
      await t.request({ method: 'POST', url: '/api/admin/webhook-simulation/twilio', ...adminSimulator(), payload: { MessageSid: 'SMrb1', From: '+15551230000', To: twilioAccount.pageId, Body: 'Hi' } });
      await t.ctx.jobs.drain();
      const { conversation } = (await conversationOfProspect(t.ctx, twilioAccount.id, '+15551230000'))!;
      const url = `/api/admin/conversation/${conversation.id}/messages/rebuild`;
      expect((await t.request({ method: 'POST', url })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url, as: normal.cookie })).statusCode).toBe(403);
      expect((await t.request({ method: 'POST', url: '/api/admin/conversation/99999999/messages/rebuild', as: admin.cookie })).statusCode).toBe(404);
      expect((await t.request({ method: 'POST', url: '/api/admin/conversation/abc/messages/rebuild', as: admin.cookie })).statusCode).toBe(400);
      const twilioRebuild = await t.request({ method: 'POST', url, as: admin.cookie });
      expect(twilioRebuild.statusCode).toBe(409);
      expect(twilioRebuild.json().error).toBe('Twilio SMS offers no message history to rebuild from: the stored messages are all there is.');

      const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', conversationTypeId: playbook.id });
      await t.request({ method: 'POST', url: '/api/meta-api/webhook', ...adminSimulator(), payload: metaMessagePayload('instagram', ig.pageId, 'sim-rb', 'm_sim_rb', 'Hi') });
      await t.ctx.jobs.drain();
      const simulated = (await conversationOfProspect(t.ctx, ig.id, 'sim-rb'))!;
      const simRebuild = await t.request({ method: 'POST', url: `/api/admin/conversation/${simulated.conversation.id}/messages/rebuild`, as: admin.cookie });
      expect(simRebuild.statusCode).toBe(409);

      const [web] = await t.ctx.db.insert(conversations).values({ conversationTypeId: playbook.id }).returning();
      expect((await t.request({ method: 'POST', url: `/api/admin/conversation/${web.id}/messages/rebuild`, as: admin.cookie })).statusCode).toBe(409);
      expect(await t.ctx.db.select().from(conversations).where(eq(conversations.id, web.id))).toHaveLength(1);
    });
  });

  it('stores a WhatsApp message with the contact name; an account without a playbook leaves the conversation to a person (-2)', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: 'PN-NOTYPE' });
    expect((await postMeta(t, whatsAppPayload(account.pageId, '34600111333', 'wamid.notype', 'Hola', 'Lucía'))).statusCode).toBe(200);
    await t.ctx.jobs.drain();
    const found = (await conversationOfProspect(t.ctx, account.id, '34600111333'))!;
    expect(found.prospect.name).toBe('Lucía');
    expect(found.conversation.phase).toBe(-2);
    expect(found.messages).toEqual([{ role: 'PROSPECT', message: 'Hola', writtenByHuman: false }]);
  });
});
