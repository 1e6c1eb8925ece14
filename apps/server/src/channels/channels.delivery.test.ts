import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations, messagingAccounts, outbox, prospects, webhookInbox } from '../db/schema/index.ts';
import { usePlaybook, useUser } from '../test/use-test-app.ts';
import {
  FB_TOKEN,
  GATEWAY_LOGIN,
  GATEWAY_PASSWORD,
  IG_LOGIN_TOKEN,
  IG_TOKEN,
  TWILIO_SID,
  TWILIO_TOKEN,
  unique,
  useChannelApp,
  WA_TOKEN,
} from '../test/use-channel-app.ts';
import {
  buildChannelAccount,
  settle,
  conversationOfProspect,
  makeJobsDue,
  metaEchoPayload,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  postTwilioSms,
  PUBLIC_URL,
  smsGatewayEvent,
  unansweredErrors,
  whatsAppPayload,
  buildSmsGatewayAccount,
} from '../test/channel-factories.ts';
import type { MetaGraphFake } from '../test/fakes/meta-graph-fake.ts';
import { DELIVER_JOB } from './delivery-keys.ts';
import { MAX_SEND_ATTEMPTS } from './deliver.job.ts';

/**
 * The outbound half of the channels (issue #8), end to end against loopback fakes of each provider: a signed
 * inbound message is answered on the same channel with the account's credentials; redeliveries and echoes;
 * transient failures retried, permanent ones shown in the unanswered entry without any token; Meta's
 * messaging windows; long replies split in order. The offline demo agent answers (it quotes the prospect).
 */

const HOUR = 3_600_000;

describe('channel delivery', () => {

  const { t, graph, igGraph, twilio, gateway } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: null });

  /** POSTs the fake received for one recipient (failed ones included); GETs (profile names) are left out. */
  const postsTo = (fake: MetaGraphFake, recipient: string) =>
    fake.requests.filter((r) => {
      const body = r.body as { recipient?: { id?: string }; to?: string } | null;
      return r.method === 'POST' && (body?.recipient?.id === recipient || body?.to === recipient);
    });
  /** Successful sends to one recipient, their texts in order. */
  const textsTo = (fake: MetaGraphFake, recipient: string) =>
    fake.sends()
      .filter((s) => (s.body.recipient as { id?: string } | undefined)?.id === recipient || s.body.to === recipient)
      .map((s) => (s.body.message as { text: string }).text);

  /** Delivery jobs that threw (a retry must be a new job, never a crash of the old one). */
  const crashedDeliveries = async () =>
    (
      (await t.ctx.db.execute(sql`select last_error from jobs where name = ${DELIVER_JOB} and last_error is not null`)) as unknown as {
        rows: { last_error: string }[];
      }
    ).rows.map((r) => r.last_error);

  const instagram = (config: Record<string, unknown> = {}, token = IG_TOKEN) =>
    buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token, config, conversationTypeId: playbook.id });
  const agentTexts = (found: Awaited<ReturnType<typeof conversationOfProspect>>) => found!.messages.filter((m) => m.role === 'AGENT').map((m) => m.message);
  /** A person writes on the conversation from our UI (spec §7.6 written-message). */
  const writeAsPerson = async (uuid: string, message: string) => {
    const res = await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, as: admin.cookie, payload: { message } });
    expect(res.statusCode).toBe(200);
    await settle(t.ctx);
  };

  describe('one inbound message answered on the same channel with the account credentials', () => {
    it('Instagram (Facebook Login): POST /{version}/me/messages with the page token, messaging_type RESPONSE', async () => {
      const account = await instagram();
      expect((await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-1', unique('mid'), 'Hello from IG'))).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-1');
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
      const posts = postsTo(graph, 'igsid-1');
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatchObject({ method: 'POST', path: '/v27.0/me/messages', token: IG_TOKEN });
      expect(posts[0].body).toEqual({ recipient: { id: 'igsid-1' }, messaging_type: 'RESPONSE', message: { text: agentTexts(found)[0] } });
      expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['SENT', 1]]);
      expect(igGraph.requests).toHaveLength(0);
    });

    it('Instagram (Instagram Login): the same call on INSTAGRAM_GRAPH_URL', async () => {
      const account = await instagram({ login: 'instagram' }, IG_LOGIN_TOKEN);
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-2', unique('mid'), 'Hi'));
      await settle(t.ctx);
      expect(postsTo(graph, 'igsid-2')).toHaveLength(0);
      expect(igGraph.sends()).toEqual([
        { path: '/v27.0/me/messages', token: IG_LOGIN_TOKEN, body: expect.objectContaining({ recipient: { id: 'igsid-2' }, messaging_type: 'RESPONSE' }) },
      ]);
    });

    it('Messenger: POST /{version}/me/messages with the page token', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, metaMessagePayload('page', account.pageId, 'psid-1', unique('mid'), 'Hello from Messenger'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'psid-1');
      expect(graph.sends()).toEqual([
        { path: '/v27.0/me/messages', token: FB_TOKEN, body: { recipient: { id: 'psid-1' }, messaging_type: 'RESPONSE', message: { text: agentTexts(found)[0] } } },
      ]);
    });

    it('WhatsApp: POST /{version}/{phone_number_id}/messages with the system-user token', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, whatsAppPayload(account.pageId, '34600111222', `wamid.${unique('w')}`, 'Hola'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, '34600111222');
      expect(graph.sends()).toEqual([
        {
          path: `/v27.0/${account.pageId}/messages`,
          token: WA_TOKEN,
          body: { messaging_product: 'whatsapp', recipient_type: 'individual', to: '34600111222', type: 'text', text: { body: agentTexts(found)[0] } },
        },
      ]);
      expect(found!.outbox[0].status).toBe('SENT');
    });

    it('Twilio SMS: Messages.json through the SDK, Basic AccountSid:AuthToken, From = the account number', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100001', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });
      const res = await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), AccountSid: TWILIO_SID, From: '+15557770001', To: account.pageId, Body: 'Hi by SMS', NumMedia: '0' });
      expect(res.statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, '+15557770001');
      expect(twilio.requests).toHaveLength(1);
      expect(twilio.requests[0]).toMatchObject({
        method: 'POST',
        path: `/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`,
        accountSid: TWILIO_SID,
        authorized: true,
        form: { To: '+15557770001', From: '+15550100001', Body: agentTexts(found)[0] },
      });
      expect(found!.outbox[0].status).toBe('SENT');
    });

    it('SMS gateway: POST {baseUrl}/messages (the documented route), Basic login:password', async () => {
      const account = await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: GATEWAY_LOGIN, password: GATEWAY_PASSWORD, signingKey: 'gw-sign' }, playbook.id);
      expect((await postSmsGateway(t, 'gw-sign', smsGatewayEvent(account.pageId, '+34600222333', unique('evt'), 'Hola gateway'))).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, '+34600222333');
      expect(gateway.requests).toEqual([
        { method: 'POST', path: '/3rdparty/v1/messages', authorized: true, body: { textMessage: { text: agentTexts(found)[0] }, phoneNumbers: ['+34600222333'] } },
      ]);
      expect(found!.outbox[0].status).toBe('SENT');
    });
  });

  it('a message redelivered three times (same and re-serialised bytes) gives one message and one reply', async () => {
    const account = await instagram();
    const mid = unique('mid');
    const payload = metaMessagePayload('instagram', account.pageId, 'igsid-redeliver', mid, 'Once only', Date.now());
    for (let i = 0; i < 3; i += 1) expect((await postMeta(t, payload)).statusCode).toBe(200);
    // Meta's redelivery may differ in bytes (another entry time): the mid still dedupes it.
    expect((await postMeta(t, { ...payload, entry: [{ ...payload.entry[0], time: Date.now() + 5 }] })).statusCode).toBe(200);
    await settle(t.ctx);
    const found = await conversationOfProspect(t.ctx, account.id, 'igsid-redeliver');
    expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
    expect(textsTo(graph, 'igsid-redeliver')).toHaveLength(1);
  });

  describe('echoes', () => {
    it('drops the echo of our own send (by message id); stores a foreign echo as a human AGENT message and pauses the AI', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, metaMessagePayload('page', account.pageId, 'psid-echo', unique('mid'), 'Hi'));
      await settle(t.ctx);
      const sentText = (graph.sends()[0].body.message as { text: string }).text;
      const [row] = await t.ctx.db.select().from(outbox).where(eq(outbox.messagingAccountId, account.id));
      expect(row.status).toBe('SENT');
      // The echo carries the message_id the fake answered; without an app_id only the id can recognise it.
      const [ourMid] = (await t.ctx.db.execute(
        `select external_id from channel_messages where messaging_account_id = ${account.id} and direction = 'OUT'`,
      ).then((r) => (r as unknown as { rows: { external_id: string }[] }).rows.map((row) => row.external_id)));
      expect(ourMid).toMatch(/^m_/);
      await postMeta(t, metaEchoPayload('page', account.pageId, 'psid-echo', ourMid, sentText));
      await settle(t.ctx);
      let found = await conversationOfProspect(t.ctx, account.id, 'psid-echo');
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
      expect(found!.conversation.aiPaused).toBe(false);

      // A person answers from Meta's inbox (another app, or none): stored as theirs, the AI steps back.
      await postMeta(t, metaEchoPayload('page', account.pageId, 'psid-echo', unique('mid-inbox'), 'Alex here, from the team.', '999000111'));
      await settle(t.ctx);
      found = await conversationOfProspect(t.ctx, account.id, 'psid-echo');
      expect(found!.messages.slice(-1)).toEqual([{ role: 'AGENT', message: 'Alex here, from the team.', writtenByHuman: true }]);
      expect(found!.conversation.aiPaused).toBe(true);
      // The prospect writes again: no AI reply while paused, and nothing more sent.
      await postMeta(t, metaMessagePayload('page', account.pageId, 'psid-echo', unique('mid'), 'Thanks Alex'));
      await settle(t.ctx);
      found = await conversationOfProspect(t.ctx, account.id, 'psid-echo');
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT', 'AGENT', 'PROSPECT']);
      expect(textsTo(graph, 'psid-echo')).toHaveLength(1);
    });
  });

  describe('failures', () => {
    it('retries a transient Graph failure (code 2, HTTP 500) with backoff, then sends once', async () => {
      const account = await instagram();
      graph.failNext('send', { code: 2 });
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-transient', unique('mid'), 'Hi'));
      await settle(t.ctx);
      let found = await conversationOfProspect(t.ctx, account.id, 'igsid-transient');
      expect(found!.outbox.map((o) => [o.status, o.attempts, o.errorCode])).toEqual([['PENDING', 1, '2']]);
      expect(found!.outbox[0].nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
      expect(postsTo(graph, 'igsid-transient')).toHaveLength(1);
      // Backoff "passes": the retry goes out and succeeds.
      await makeJobsDue(t.ctx, DELIVER_JOB);
      await settle(t.ctx);
      found = await conversationOfProspect(t.ctx, account.id, 'igsid-transient');
      expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['SENT', 2]]);
      expect(postsTo(graph, 'igsid-transient')).toHaveLength(2);
      expect(textsTo(graph, 'igsid-transient')).toHaveLength(1);
      expect(await unansweredErrors(t.ctx, found!.conversation.id)).toEqual([]);
      expect(await crashedDeliveries()).toEqual([]);
    });

    it('retries network failures and rate limits (Twilio 20429, gateway 503) until they pass', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100002', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });
      twilio.dropNext();
      twilio.failNext('Messages', { status: 429, code: 20429 });
      await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), From: '+15557770002', To: account.pageId, Body: 'Hi' });
      await settle(t.ctx);
      for (const expected of [['PENDING', 1], ['PENDING', 2], ['SENT', 3]]) {
        const found = await conversationOfProspect(t.ctx, account.id, '+15557770002');
        expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([expected]);
        await makeJobsDue(t.ctx, DELIVER_JOB);
        await settle(t.ctx);
      }
      expect(twilio.messages).toHaveLength(1);

      const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('device'), token: `${GATEWAY_LOGIN}:${GATEWAY_PASSWORD}`, config: { baseUrl: gateway.baseUrl, signingKey: 'k2' }, conversationTypeId: playbook.id });
      gateway.failNext(503, 'device offline');
      await postSmsGateway(t, 'k2', smsGatewayEvent(gw.pageId, '+34600444555', unique('evt'), 'Hola'));
      await settle(t.ctx);
      expect((await conversationOfProspect(t.ctx, gw.id, '+34600444555'))!.outbox.map((o) => [o.status, o.errorCode])).toEqual([['PENDING', 'HTTP_503']]);
      await makeJobsDue(t.ctx, DELIVER_JOB);
      await settle(t.ctx);
      expect((await conversationOfProspect(t.ctx, gw.id, '+34600444555'))!.outbox.map((o) => o.status)).toEqual(['SENT']);
    });

    it('gives up after the last attempt of a transient failure and records it', async () => {
      const account = await instagram();
      graph.failNext('send', { code: 613 }, MAX_SEND_ATTEMPTS);
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-exhausted', unique('mid'), 'Hi'));
      await settle(t.ctx);
      for (let i = 1; i < MAX_SEND_ATTEMPTS; i += 1) {
        await makeJobsDue(t.ctx, DELIVER_JOB);
        await settle(t.ctx);
      }
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-exhausted');
      expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['FAILED', MAX_SEND_ATTEMPTS]]);
      expect((await unansweredErrors(t.ctx, found!.conversation.id)).map((e) => e.code)).toEqual(['613']);
      expect(postsTo(graph, 'igsid-exhausted')).toHaveLength(MAX_SEND_ATTEMPTS);
      expect(await crashedDeliveries()).toEqual([]);
    });

    it('does not retry a permanent Graph failure (190) and shows it in the unanswered errors with every token removed', async () => {
      const account = await instagram();
      // A provider that quotes the token back (in its message and a query string) must not leak it.
      graph.failNext('send', { code: 190, subcode: 463, message: `Error validating access token ${IG_TOKEN}: Session has expired (see ?access_token=${IG_TOKEN}).` });
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-permanent', unique('mid'), 'Hi'));
      await settle(t.ctx);
      await makeJobsDue(t.ctx, DELIVER_JOB);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-permanent');
      expect(found!.outbox.map((o) => [o.status, o.attempts, o.errorCode])).toEqual([['FAILED', 1, '190/463']]);
      expect(postsTo(graph, 'igsid-permanent')).toHaveLength(1);
      const errors = await unansweredErrors(t.ctx, found!.conversation.id);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ type: 'OAuthException', code: '190/463', status: 400, method: 'POST', url: `${graph.url}/v27.0/me/messages` });
      expect(Object.keys(errors[0]).sort()).toEqual(['at', 'code', 'details', 'message', 'method', 'response', 'status', 'type', 'url']);
      expect(errors[0].message).toContain('Session has expired');
      expect(errors[0].response).toContain('"code":190');
      expect(JSON.stringify(errors)).not.toContain(IG_TOKEN);
      // The monitor (spec §2.9) lists it.
      const monitor = await t.request({ method: 'GET', url: '/api/admin/unanswered-conversations/listt', as: admin.cookie });
      expect(monitor.statusCode).toBe(200);
      expect(monitor.body).toContain('Session has expired');
      expect(monitor.body).not.toContain(IG_TOKEN);
      // 190 means the stored token is dead: the account is flagged 'reconnect needed'.
      const [flagged] = await t.ctx.db.select({ at: messagingAccounts.tokenRejectedAt }).from(messagingAccounts).where(eq(messagingAccounts.id, account.id));
      expect(flagged.at).toBeInstanceOf(Date);
    });

    it.each([
      ['outside the window (10/2018278)', { code: 10, subcode: 2018278 }, '10/2018278'],
      ['user unavailable (551)', { code: 551 }, '551'],
      ['bad parameter (100)', { code: 100 }, '100'],
      ['permission (200)', { code: 200, status: 403 }, '200'],
    ])('does not retry Meta %s', async (_name, failure, code) => {
      const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
      graph.failNext('send', failure);
      await postMeta(t, metaMessagePayload('page', account.pageId, 'psid-perm', unique('mid'), 'Hi'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'psid-perm');
      expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['FAILED', 1]]);
      expect((await unansweredErrors(t.ctx, found!.conversation.id)).map((e) => e.code)).toEqual([code]);
    });

    it('does not retry Twilio 21211 / 21610 or a gateway 400, and keeps their credentials out of the errors', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100003', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID }, conversationTypeId: playbook.id });
      twilio.failNext('Messages', { status: 400, code: 21211, message: `The 'To' number is not valid (token ${TWILIO_TOKEN}).` });
      await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), From: '+15557770003', To: account.pageId, Body: 'Hi' });
      // Jobs of different conversations run side by side: the first send meets its scripted failure first.
      await settle(t.ctx);
      twilio.failNext('Messages', { status: 400, code: 21610 });
      await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), From: '+15557770004', To: account.pageId, Body: 'Hi' });
      await settle(t.ctx);
      await makeJobsDue(t.ctx, DELIVER_JOB);
      await settle(t.ctx);
      for (const [from, code] of [['+15557770003', '21211'], ['+15557770004', '21610']]) {
        const found = await conversationOfProspect(t.ctx, account.id, from);
        expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['FAILED', 1]]);
        const errors = await unansweredErrors(t.ctx, found!.conversation.id);
        expect(errors[0]).toMatchObject({ type: 'twilio', code, status: 400, method: 'POST', url: `${twilio.url}/2010-04-01/Accounts/${TWILIO_SID}/Messages.json` });
        expect(JSON.stringify(errors)).not.toContain(TWILIO_TOKEN);
      }
      expect(twilio.requests).toHaveLength(2);

      const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('device'), token: `${GATEWAY_LOGIN}:${GATEWAY_PASSWORD}`, config: { baseUrl: gateway.baseUrl, signingKey: 'k3' }, conversationTypeId: playbook.id });
      gateway.failNext(400, `invalid phone number (auth ${GATEWAY_PASSWORD})`);
      await postSmsGateway(t, 'k3', smsGatewayEvent(gw.pageId, '+34600555666', unique('evt'), 'Hola'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, gw.id, '+34600555666');
      expect(found!.outbox.map((o) => [o.status, o.attempts])).toEqual([['FAILED', 1]]);
      const errors = await unansweredErrors(t.ctx, found!.conversation.id);
      expect(errors[0]).toMatchObject({ type: 'sms-gateway', code: 'HTTP_400', status: 400, url: `${gateway.baseUrl}/messages` });
      expect(JSON.stringify(errors)).not.toContain(GATEWAY_PASSWORD);
    });

    it('fails at once with a clear error when a Twilio account has no accountSid, or a gateway token is not login:password', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100004', token: TWILIO_TOKEN, config: {}, conversationTypeId: playbook.id });
      await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), From: '+15557770005', To: account.pageId, Body: 'Hi' });
      const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('device'), token: 'no-colon', config: { baseUrl: gateway.baseUrl, signingKey: 'k4' }, conversationTypeId: playbook.id });
      await postSmsGateway(t, 'k4', smsGatewayEvent(gw.pageId, '+34600777888', unique('evt'), 'Hola'));
      await settle(t.ctx);
      const twilioFound = await conversationOfProspect(t.ctx, account.id, '+15557770005');
      expect(twilioFound!.outbox.map((o) => o.status)).toEqual(['FAILED']);
      expect((await unansweredErrors(t.ctx, twilioFound!.conversation.id))[0]).toMatchObject({ code: 'TWILIO_ACCOUNT_SID_MISSING', message: expect.stringContaining('accountSid') });
      const gwFound = await conversationOfProspect(t.ctx, gw.id, '+34600777888');
      expect((await unansweredErrors(t.ctx, gwFound!.conversation.id))[0]).toMatchObject({ code: 'SMS_GATEWAY_CREDENTIALS_INVALID' });
      expect(twilio.requests).toHaveLength(0);
      expect(gateway.requests).toHaveLength(0);
      expect(JSON.stringify(await unansweredErrors(t.ctx, twilioFound!.conversation.id))).not.toContain(TWILIO_TOKEN);
    });
  });

  describe('messaging windows', () => {
    it('Instagram: no AI reply after 24 h (recorded), a person\'s message goes with HUMAN_AGENT within 7 days, nothing after', async () => {
      const account = await instagram();
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-late', unique('mid'), 'Old message', Date.now() - 25 * HOUR));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-late');
      expect(found!.outbox.map((o) => [o.status, o.errorCode])).toEqual([['FAILED', 'OUTSIDE_24H_WINDOW']]);
      expect((await unansweredErrors(t.ctx, found!.conversation.id)).map((e) => e.code)).toEqual(['OUTSIDE_24H_WINDOW']);
      expect(postsTo(graph, 'igsid-late')).toHaveLength(0);

      await writeAsPerson(found!.conversation.uuid, 'Sorry for the delay, Alex here.');
      expect(graph.sends()).toEqual([
        {
          path: '/v27.0/me/messages',
          token: IG_TOKEN,
          body: { recipient: { id: 'igsid-late' }, messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT', message: { text: 'Sorry for the delay, Alex here.' } },
        },
      ]);

      const old = await instagram();
      await postMeta(t, metaMessagePayload('instagram', old.pageId, 'igsid-8days', unique('mid'), 'Very old', Date.now() - 8 * 24 * HOUR));
      await settle(t.ctx);
      const oldFound = await conversationOfProspect(t.ctx, old.id, 'igsid-8days');
      await writeAsPerson(oldFound!.conversation.uuid, 'Still there?');
      const after = await conversationOfProspect(t.ctx, old.id, 'igsid-8days');
      expect(after!.outbox.map((o) => [o.status, o.errorCode])).toEqual([
        ['FAILED', 'OUTSIDE_24H_WINDOW'],
        ['FAILED', 'OUTSIDE_HUMAN_AGENT_WINDOW'],
      ]);
      expect(postsTo(graph, 'igsid-8days')).toHaveLength(0);
    });

    it('Messenger: inside 24 h even a person\'s message goes as RESPONSE (the tag is only for the late window)', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, metaMessagePayload('page', account.pageId, 'psid-win', unique('mid'), 'Hi'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'psid-win');
      await writeAsPerson(found!.conversation.uuid, 'A person here.');
      expect(graph.sends().map((s) => [s.body.messaging_type, s.body.tag])).toEqual([
        ['RESPONSE', undefined],
        ['RESPONSE', undefined],
      ]);
    });

    it('WhatsApp: outside 24 h only the configured template goes out; without one the error is recorded', async () => {
      const template = { name: 'follow_up_v1', language: 'es_ES' };
      const withTemplate = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, config: { templates: { outsideWindow: template } }, conversationTypeId: playbook.id });
      await postMeta(t, whatsAppPayload(withTemplate.pageId, '34600999001', `wamid.${unique('w')}`, 'Hola', 'Ana', Date.now() - 30 * HOUR));
      const without = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, whatsAppPayload(without.pageId, '34600999002', `wamid.${unique('w')}`, 'Hola', 'Bea', Date.now() - 30 * HOUR));
      await settle(t.ctx);
      expect(graph.sends()).toEqual([
        {
          path: `/v27.0/${withTemplate.pageId}/messages`,
          token: WA_TOKEN,
          body: { messaging_product: 'whatsapp', recipient_type: 'individual', to: '34600999001', type: 'template', template: { name: 'follow_up_v1', language: { code: 'es_ES' } } },
        },
      ]);
      const failed = await conversationOfProspect(t.ctx, without.id, '34600999002');
      expect(failed!.outbox.map((o) => [o.status, o.errorCode])).toEqual([['FAILED', 'OUTSIDE_24H_WINDOW']]);
      expect((await unansweredErrors(t.ctx, failed!.conversation.id))[0].message).toMatch(/template/);
    });

    it('SMS has no window', async () => {
      const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('device'), token: `${GATEWAY_LOGIN}:${GATEWAY_PASSWORD}`, config: { baseUrl: gateway.baseUrl, signingKey: 'k5' }, conversationTypeId: playbook.id });
      const event = smsGatewayEvent(gw.pageId, '+34600123123', unique('evt'), 'Hola');
      event.payload.receivedAt = new Date(Date.now() - 10 * 24 * HOUR).toISOString();
      await postSmsGateway(t, 'k5', event);
      await settle(t.ctx);
      expect(gateway.messages).toHaveLength(1);
    });
  });

  describe('long replies (a person\'s long message; the demo agent keeps its own replies short)', () => {
    const longText = () => Array.from({ length: 40 }, (_, i) => `Frase número ${i}: ¿cuántos widgets necesitáis para la tienda?`).join(' ');

    /** A prospect conversation on the account, answered once by the AI; answers the conversation. */
    const started = async (account: { id: number; pageId: string; type: string }, recipient: string) => {
      await postMeta(t, metaMessagePayload(account.type === 'FACEBOOK' ? 'page' : 'instagram', account.pageId, recipient, unique('mid'), 'Hi'));
      await settle(t.ctx);
      return (await conversationOfProspect(t.ctx, account.id, recipient))!;
    };

    it('Instagram: parts of at most 1,000 bytes, cut at sentence boundaries, sent in order', async () => {
      const account = await instagram();
      const found = await started(account, 'igsid-long');
      const text = longText();
      expect(Buffer.byteLength(text)).toBeGreaterThan(2000);
      await writeAsPerson(found.conversation.uuid, text);
      const parts = textsTo(graph, 'igsid-long').slice(1);
      expect(parts.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(1000);
      expect(parts.join(' ')).toBe(text);
      expect(parts.every((p) => p.endsWith('?'))).toBe(true);
      const after = await conversationOfProspect(t.ctx, account.id, 'igsid-long');
      expect(after!.outbox.map((o) => [o.status, o.sentParts])).toEqual([
        ['SENT', 1],
        ['SENT', parts.length],
      ]);
    });

    it('a retry after a failed middle part resumes after the parts already delivered', async () => {
      const account = await instagram();
      const found = await started(account, 'igsid-resume');
      graph.failNext('send', { code: 2 }, 1, { after: 1 });
      await writeAsPerson(found.conversation.uuid, longText());
      let after = await conversationOfProspect(t.ctx, account.id, 'igsid-resume');
      expect(after!.outbox.map((o) => [o.status, o.sentParts])).toEqual([
        ['SENT', 1],
        ['PENDING', 1],
      ]);
      await makeJobsDue(t.ctx, DELIVER_JOB);
      await settle(t.ctx);
      after = await conversationOfProspect(t.ctx, account.id, 'igsid-resume');
      const parts = textsTo(graph, 'igsid-resume').slice(1);
      expect(parts.join(' ')).toBe(longText());
      expect(new Set(parts).size).toBe(parts.length);
      expect(after!.outbox.map((o) => o.status)).toEqual(['SENT', 'SENT']);
      expect(after!.outbox[1].sentParts).toBe(parts.length);
    });

    it('Messenger counts characters (2,000): the same text that needs 3+ Instagram parts needs fewer', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'FACEBOOK', pageId: unique('PAGE'), token: FB_TOKEN, conversationTypeId: playbook.id });
      const found = await started(account, 'psid-long');
      await writeAsPerson(found.conversation.uuid, longText());
      const parts = textsTo(graph, 'psid-long').slice(1);
      expect(parts).toHaveLength(2);
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
      expect(parts.join(' ')).toBe(longText());
    });

    it('WhatsApp (4,096) and SMS (1,600) split at their own limits', async () => {
      const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: playbook.id });
      await postMeta(t, whatsAppPayload(wa.pageId, '34600888001', `wamid.${unique('w')}`, 'Hola'));
      const gw = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', pageId: unique('device'), token: `${GATEWAY_LOGIN}:${GATEWAY_PASSWORD}`, config: { baseUrl: gateway.baseUrl, signingKey: 'k6' }, conversationTypeId: playbook.id });
      await postSmsGateway(t, 'k6', smsGatewayEvent(gw.pageId, '+34600888002', unique('evt'), 'Hola'));
      await settle(t.ctx);
      const text = `${longText()} ${longText()}`; // about 5,000 characters
      await writeAsPerson((await conversationOfProspect(t.ctx, wa.id, '34600888001'))!.conversation.uuid, text);
      await writeAsPerson((await conversationOfProspect(t.ctx, gw.id, '+34600888002'))!.conversation.uuid, text);
      const waParts = graph.sends().filter((s) => s.body.to === '34600888001').slice(1).map((s) => (s.body.text as { body: string }).body);
      expect(waParts).toHaveLength(2);
      expect(waParts.every((p) => p.length <= 4096)).toBe(true);
      expect(waParts.join(' ')).toBe(text);
      const smsParts = gateway.messages.filter((m) => m.phoneNumbers[0] === '+34600888002').slice(1).map((m) => m.text);
      expect(smsParts).toHaveLength(4);
      expect(smsParts.every((p) => p.length <= 1600)).toBe(true);
      expect(smsParts.join(' ')).toBe(text);
    });
  });

  it('keeps a conversation\'s replies in order: a newer outbox row waits for an older one in retry', async () => {
    const account = await instagram();
    graph.failNext('send', { code: 4 });
    await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-order', unique('mid'), 'First'));
    await settle(t.ctx);
    const found = await conversationOfProspect(t.ctx, account.id, 'igsid-order');
    await writeAsPerson(found!.conversation.uuid, 'Second, from a person.');
    expect(textsTo(graph, 'igsid-order')).toHaveLength(0);
    await makeJobsDue(t.ctx, DELIVER_JOB);
    await settle(t.ctx);
    await makeJobsDue(t.ctx, DELIVER_JOB);
    await settle(t.ctx);
    expect(textsTo(graph, 'igsid-order')).toEqual([agentTexts(found)[0], 'Second, from a person.']);
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, found!.conversation.id));
    expect(conversation.aiPaused).toBe(true);
  });

  it('a sender id first used in the webhook simulator does not capture the real person: the signed event is a real prospect whose replies are sent', async () => {
    const account = await instagram();
    const simulated = await t.request({ method: 'POST', url: '/api/meta-api/webhook', as: admin.cookie, headers: { origin: PUBLIC_URL }, payload: metaMessagePayload('instagram', account.pageId, 'igsid-shared', unique('mid'), 'Simulated hi') });
    expect(simulated.statusCode).toBe(200);
    await settle(t.ctx);
    await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-shared', unique('mid'), 'Real hi'));
    await settle(t.ctx);
    const rows = await t.ctx.db.select().from(prospects).where(sql`${prospects.messagingAccountId} = ${account.id} and ${prospects.externalId} = 'igsid-shared'`).orderBy(prospects.id);
    expect(rows.map((p) => p.simulated)).toEqual([true, false]);
    const statuses = async (prospectId: number) =>
      (
        (await t.ctx.db.execute(sql`select o.status from outbox o join conversations c on c.id = o.conversation_id where c.prospect_id = ${prospectId} order by o.id`)) as unknown as {
          rows: { status: string }[];
        }
      ).rows.map((r) => r.status);
    expect(await statuses(rows[0].id)).toEqual(['SIMULATED']);
    expect(await statuses(rows[1].id)).toEqual(['SENT']);
    expect(textsTo(graph, 'igsid-shared')).toHaveLength(1);
  });

  it('keeps message ids past 2^31 (messages.id is a bigserial): the outbox and channel records are bigint', async () => {
    const account = await instagram();
    await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-bigid', unique('mid'), 'Hi'));
    await settle(t.ctx);
    const found = await conversationOfProspect(t.ctx, account.id, 'igsid-bigid');
    await t.ctx.db.execute(sql`select setval(pg_get_serial_sequence('messages', 'id'), 3000000000)`);
    await writeAsPerson(found!.conversation.uuid, 'A message with a big id.');
    const rows = (await conversationOfProspect(t.ctx, account.id, 'igsid-bigid'))!.outbox;
    expect(rows.map((o) => [o.status, Number(o.messageId) > 2 ** 31])).toEqual([['SENT', false], ['SENT', true]]);
    expect(textsTo(graph, 'igsid-bigid')).toContain('A message with a big id.');
  });

  it('one poison event does not fail the other events of its webhook payload: they are answered, the failing one is recorded', async () => {
    const account = await instagram();
    const poison = metaMessagePayload('instagram', account.pageId, 'igsid-poison', unique('mid'), 'Broken', 1e20);
    const good = metaMessagePayload('instagram', account.pageId, 'igsid-healthy', unique('mid'), 'Hello');
    const payload = { object: 'instagram', entry: [...poison.entry, ...good.entry] };
    expect((await postMeta(t, payload)).statusCode).toBe(200);
    await settle(t.ctx);
    const healthy = await conversationOfProspect(t.ctx, account.id, 'igsid-healthy');
    expect(healthy!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
    expect(healthy!.outbox.map((o) => o.status)).toEqual(['SENT']);
    expect(await conversationOfProspect(t.ctx, account.id, 'igsid-poison')).toBeNull();
    const [row] = await t.ctx.db.select().from(webhookInbox).where(sql`${webhookInbox.payload}::text like '%igsid-poison%'`);
    expect(row.processedAt).toBeNull();
    expect(row.error).toMatch(/^event 1 of 2 \(message /);
  });

  describe('the outbox never sticks (issue 18 item 3)', () => {
    it('a Twilio accountSid without its AC prefix fails the row with a clear error instead of crashing the job', async () => {
      const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550100019', token: TWILIO_TOKEN, config: { accountSid: TWILIO_SID.slice(2) }, conversationTypeId: playbook.id });
      await postTwilioSms(t, TWILIO_TOKEN, { MessageSid: unique('SM'), From: '+15557770019', To: account.pageId, Body: 'Hi' });
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, '+15557770019');
      expect(found!.outbox.map((o) => [o.status, o.errorCode])).toEqual([['FAILED', 'TWILIO_ACCOUNT_SID_INVALID']]);
      expect((await unansweredErrors(t.ctx, found!.conversation.id))[0]).toMatchObject({ code: 'TWILIO_ACCOUNT_SID_INVALID', message: expect.stringContaining('AC') });
      expect(twilio.requests).toHaveLength(0);
      expect(await crashedDeliveries()).toEqual([]);
    });

    it('a failure no sender classified is counted on the row, retried with backoff, and failed after the last attempt with its error shown', async () => {
      const account = await instagram();
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-unclassified', unique('mid'), 'Hi'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-unclassified');
      // The stored token can no longer be opened (sealed with another APP_SECRET): not a ChannelSendError.
      await t.ctx.db.update(messagingAccounts).set({ accessTokenEncrypted: 'v1.AAAA.BBBB.CCCC' }).where(eq(messagingAccounts.id, account.id));
      await writeAsPerson(found!.conversation.uuid, 'A person writes.');
      let rows = (await conversationOfProspect(t.ctx, account.id, 'igsid-unclassified'))!.outbox;
      expect(rows.map((o) => [o.status, o.attempts])).toEqual([['SENT', 1], ['PENDING', 1]]);
      expect(rows[1].lastError).toMatch(/^Sending failed/);
      expect(rows[1].nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
      for (let i = 1; i < MAX_SEND_ATTEMPTS; i += 1) {
        await makeJobsDue(t.ctx, DELIVER_JOB);
        await settle(t.ctx);
      }
      rows = (await conversationOfProspect(t.ctx, account.id, 'igsid-unclassified'))!.outbox;
      expect(rows[1]).toMatchObject({ status: 'FAILED', attempts: MAX_SEND_ATTEMPTS });
      expect((await unansweredErrors(t.ctx, found!.conversation.id)).map((e) => e.type)).toEqual(['internal']);
      expect(await crashedDeliveries()).toEqual([]);
    });

    it('ordering never waits on a predecessor whose job is gone: the later reply goes, and the predecessor is queued again', async () => {
      const account = await instagram();
      graph.failNext('send', { code: 4 });
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-orphan', unique('mid'), 'First'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-orphan');
      expect(found!.outbox.map((o) => o.status)).toEqual(['PENDING']);
      // Its job is lost (a runner that gave up on it, an operator's cleanup): the row is still PENDING.
      await t.ctx.db.execute(sql`update jobs set status = 'failed' where singleton_key = ${`deliver:${found!.outbox[0].id}`} and status = 'pending'`);
      await writeAsPerson(found!.conversation.uuid, 'Second, from a person.');
      expect(textsTo(graph, 'igsid-orphan')).toEqual(['Second, from a person.', agentTexts(found)[0]]);
      const rows = (await conversationOfProspect(t.ctx, account.id, 'igsid-orphan'))!.outbox;
      expect(rows.map((o) => o.status)).toEqual(['SENT', 'SENT']);
    });

    it('a reply waiting behind a predecessor in backoff waits for that retry, not a poll every second, and goes right after it', async () => {
      const account = await instagram();
      graph.failNext('send', { code: 4 });
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-behind', unique('mid'), 'First'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-behind');
      await writeAsPerson(found!.conversation.uuid, 'Second.');
      const keys = (await conversationOfProspect(t.ctx, account.id, 'igsid-behind'))!.outbox.map((o) => `deliver:${o.id}`);
      const runAt = async (key: string) =>
        new Date(((await t.ctx.db.execute(sql`select run_at from jobs where singleton_key = ${key} and status = 'pending'`)) as unknown as { rows: { run_at: string }[] }).rows[0].run_at).getTime();
      expect(await runAt(keys[1])).toBeGreaterThan(await runAt(keys[0]));
      // Only the first row's retry is made due: its success wakes the second at once.
      await t.ctx.db.execute(sql`update jobs set run_at = now() - interval '1 second' where singleton_key = ${keys[0]} and status = 'pending'`);
      await settle(t.ctx);
      expect(textsTo(graph, 'igsid-behind')).toEqual([agentTexts(found)[0], 'Second.']);
    });

    it('a reply whose predecessor finishes while it is deciding to wait is not parked for the fallback time (the missed wake-up)', async () => {
      const account = await instagram();
      graph.failNext('send', { code: 4 });
      await postMeta(t, metaMessagePayload('instagram', account.pageId, 'igsid-race', unique('mid'), 'First'));
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, account.id, 'igsid-race');
      const [first] = found!.outbox;
      // The first row is being sent right now (its job running) when the second row's job looks at it ...
      await t.ctx.db.execute(sql`update jobs set status = 'running', run_at = now() where singleton_key = ${`deliver:${first.id}`} and status = 'pending'`);
      const jobs = t.ctx.jobs;
      const park = jobs.completeAndEnqueue.bind(jobs);
      // ... and it ends between that look and the second job parking itself: its wake-up finds the second job
      // still running and moves nothing (what a real interleaving of two workers does).
      jobs.completeAndEnqueue = (async (...args: Parameters<typeof park>) => {
        jobs.completeAndEnqueue = park;
        await t.ctx.db.execute(sql`update outbox set status = 'SENT', sent_at = now() where id = ${first.id}`);
        await t.ctx.db.execute(sql`update jobs set status = 'done' where singleton_key = ${`deliver:${first.id}`} and status = 'running'`);
        return park(...args);
      }) as typeof park;
      try {
        await writeAsPerson(found!.conversation.uuid, 'Second.');
        await settle(t.ctx);
      } finally {
        jobs.completeAndEnqueue = park;
      }
      const rows = (await conversationOfProspect(t.ctx, account.id, 'igsid-race'))!.outbox;
      expect(rows.map((o) => o.status)).toEqual(['SENT', 'SENT']);
      expect(textsTo(graph, 'igsid-race')).toEqual(['Second.']);
    });
  });
});
