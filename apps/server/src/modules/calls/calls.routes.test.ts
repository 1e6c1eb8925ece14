import { eq, sql } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversations, conversationTypes, prospects } from '../../db/schema/index.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import type { TestApp } from '../../test/build-test-app.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildChannelAccount, countRows, PUBLIC_URL } from '../../test/channel-factories.ts';
import { buildUser, type TestUser } from '../../test/factories.ts';
import { startTwilioFake, type TwilioFake } from '../../test/fakes/twilio-fake.ts';
import { grantAccount } from '../../test/conversation-factories.ts';
import { ACCOUNT_SID, AUTH_TOKEN, buildCallSetup, CALLEE, callRow, freshStorageDir, OUR_NUMBER } from '../../voice/voice-test-kit.ts';

/**
 * Make a Call (spec §2.5, §7.3 POST /api/admin/call/{phone}) against the loopback Twilio REST fake, and the
 * call facts the detail page reads (GET /api/conversation/{uuid}/call).
 */
describe('POST /api/admin/call/{phone}', () => {
  let typeId: number;
  let accountId: number;

  const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
  const t = useTestApp({ env: () => ({ TWILIO_API_URL: twilioFake.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }) });
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);
  beforeAll(async () => {
    const setup = await buildCallSetup(t.ctx);
    typeId = setup.type.id;
    accountId = setup.account.id;
  });
  beforeEach(() => {
    twilioFake.requests.length = 0;
    twilioFake.calls.length = 0;
  });

  const call = (phone: string, payload: unknown, as: string | null = admin.cookie) =>
    t.request({ method: 'POST', url: `/api/admin/call/${encodeURIComponent(phone)}`, payload: payload as object, as: as ?? undefined });

  it('places the call on the type’s Twilio account with our TwiML, status, recording and detection callbacks, and answers the new uuid', async () => {
    const res = await call(CALLEE, { conversationTypeId: typeId, contactId: ' ct-42 ', useRealtimeApi: false });
    expect(res.statusCode).toBe(200);
    const { uuid } = res.json<{ uuid: string }>();
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);

    expect(twilioFake.calls).toHaveLength(1);
    const placed = twilioFake.calls[0];
    const request = twilioFake.requests.find((r) => r.path.endsWith('/Calls.json'))!;
    expect(request.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`);
    expect(request.authorized).toBe(true);
    const base = `${PUBLIC_URL}/api/voice/calls/${uuid}`;
    expect(placed.to).toBe(CALLEE);
    expect(placed.from).toBe(OUR_NUMBER);
    expect(placed.params).toMatchObject({
      Url: `${base}/twiml`,
      Method: 'POST',
      StatusCallback: `${base}/status`,
      StatusCallbackMethod: 'POST',
      Record: 'true',
      RecordingStatusCallback: `${base}/recording`,
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: `${base}/amd`,
    });
    expect(request.formAll.StatusCallbackEvent).toEqual(['initiated', 'ringing', 'answered', 'completed']);

    const row = await callRow(t.ctx, uuid);
    expect(row).toMatchObject({
      callSid: placed.sid,
      callStatus: 'queued',
      callDirection: 'outbound',
      useRealtimeApi: false,
      crmContactId: 'ct-42',
      messagingAccountId: accountId,
      conversationTypeId: typeId,
      phase: 0,
    });
    const [prospect] = await t.ctx.db.select().from(prospects).where(eq(prospects.id, row.prospectId!));
    expect(prospect).toMatchObject({ messagingAccountId: accountId, externalId: CALLEE });
  });

  it('defaults to the realtime agent, and a second call to the same number is a new conversation of the same prospect', async () => {
    const first = (await call(CALLEE, { conversationTypeId: typeId })).json<{ uuid: string }>().uuid;
    const second = (await call(CALLEE, { conversationTypeId: typeId, contactId: '' })).json<{ uuid: string }>().uuid;
    const [a, b] = [await callRow(t.ctx, first), await callRow(t.ctx, second)];
    expect(a.useRealtimeApi).toBe(true);
    expect(b.crmContactId).toBeNull();
    expect(a.id).not.toBe(b.id);
    expect(a.prospectId).toBe(b.prospectId);
  });

  it('answers 401 anonymous and 403 for a NORMAL user, placing nothing', async () => {
    expect((await call(CALLEE, { conversationTypeId: typeId }, null)).statusCode).toBe(401);
    const res = await call(CALLEE, { conversationTypeId: typeId }, normal.cookie);
    expect(res.statusCode).toBe(403);
    expect(twilioFake.requests).toHaveLength(0);
  });

  it('answers 400 naming the rule for a phone number that is not E.164, and for a body without a type', async () => {
    for (const phone of ['4155550123', '+0155550123', '+1 415 555 0123', '+1415555012345678', 'abc']) {
      const res = await call(phone, { conversationTypeId: typeId });
      expect(res.statusCode, phone).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_PHONE', error: expect.stringContaining('E.164') });
    }
    const missing = await call(CALLEE, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toContain('conversationTypeId');
    const wrongType = await call(CALLEE, { conversationTypeId: typeId, useRealtimeApi: 'yes' });
    expect(wrongType.statusCode).toBe(400);
    expect(twilioFake.requests).toHaveLength(0);
  });

  it('answers 404 for an unknown conversation type', async () => {
    const res = await call(CALLEE, { conversationTypeId: 987654 });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
  });

  it('answers 400 when the type has no Twilio account (none, or another channel) or the account lacks its accountSid', async () => {
    const bare = await buildPlaybook(t.ctx);
    const res = await call(CALLEE, { conversationTypeId: bare.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'NO_TWILIO_ACCOUNT', error: expect.stringContaining('no Twilio messaging account') });

    const instagram = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM' });
    await t.ctx.db.update(conversationTypes).set({ messagingAccountId: instagram.id }).where(eq(conversationTypes.id, bare.id));
    expect((await call(CALLEE, { conversationTypeId: bare.id })).json().code).toBe('NO_TWILIO_ACCOUNT');

    const noSid = await buildCallSetup(t.ctx, { accountConfig: {}, pageId: '+15550002222' });
    const incomplete = await call(CALLEE, { conversationTypeId: noSid.type.id });
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.json()).toMatchObject({ code: 'TWILIO_ACCOUNT_INCOMPLETE', error: expect.stringContaining('accountSid') });
    expect(twilioFake.requests).toHaveLength(0);
  });

  it("passes Twilio's refusal on as a sentence (21211, 21215, bad credentials) and keeps no conversation", async () => {
    const before = await countRows(t.ctx, 'conversations');
    twilioFake.failNext('Calls', { status: 400, code: 21211 });
    const invalid = await call(CALLEE, { conversationTypeId: typeId });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'TWILIO_REFUSED', error: "Twilio says the 'To' number is not a valid phone number (Twilio error 21211)." });

    twilioFake.failNext('Calls', { status: 400, code: 21215, message: 'Account not authorized to call +4415550123. Perhaps you need to enable some international permissions' });
    const geo = await call(CALLEE, { conversationTypeId: typeId });
    expect(geo.statusCode).toBe(400);
    expect(geo.json().error).toContain('Geographic Permissions');
    expect(geo.json().error).toContain('21215');

    twilioFake.failNext('Calls', { status: 400, code: 13224, message: 'Dial: Invalid phone number format' });
    const other = await call(CALLEE, { conversationTypeId: typeId });
    expect(other.json().error).toBe('Twilio refused the call: Dial: Invalid phone number format (Twilio error 13224).');

    twilioFake.accounts.set(ACCOUNT_SID, 'another-token');
    try {
      const denied = await call(CALLEE, { conversationTypeId: typeId });
      expect(denied.statusCode).toBe(400);
      expect(denied.json().error).toContain('Auth Token');
      expect(denied.json().error).not.toContain(AUTH_TOKEN);
    } finally {
      twilioFake.accounts.set(ACCOUNT_SID, AUTH_TOKEN);
    }
    expect(await countRows(t.ctx, 'conversations')).toBe(before);
  });

  it('answers 502 when Twilio fails or cannot be reached', async () => {
    twilioFake.failNext('Calls', { status: 503, code: 20500, message: 'Service unavailable' });
    const failing = await call(CALLEE, { conversationTypeId: typeId });
    expect(failing.statusCode).toBe(502);
    expect(failing.json().code).toBe('TWILIO_UNAVAILABLE');
    twilioFake.dropNext();
    expect((await call(CALLEE, { conversationTypeId: typeId })).statusCode).toBe(502);
  });
});

describe('GET /api/conversation/{uuid}/call', () => {
  const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
  const t = useTestApp({ env: () => ({ TWILIO_API_URL: twilioFake.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }) });
  const admin = useUser(t, 'ADMIN');

  it('answers the call facts to those who may see the conversation, null for a chat, 404 to others', async () => {
    const { type, account } = await buildCallSetup(t.ctx);
    const { uuid } = (
      await t.request({ method: 'POST', url: `/api/admin/call/${CALLEE}`, payload: { conversationTypeId: type.id, useRealtimeApi: false }, as: admin.cookie })
    ).json<{ uuid: string }>();
    await t.ctx.db.update(conversations).set({ callStatus: 'completed', callDuration: 61, callCostUsd: 0.028, costUsd: 0.03 }).where(eq(conversations.uuid, uuid));

    const res = await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call`, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json().call).toEqual({
      status: 'completed',
      direction: 'outbound',
      useRealtimeApi: false,
      answeredBy: null,
      duration: 61,
      recordingUrl: null,
      recordingDuration: null,
      ttsCharacters: 0,
      callCostUsd: 0.028,
      totalCostUsd: 0.03,
      responseLatencyMs: { p50: null, p90: null, turns: 0 },
    });
    // The realtime bridge's measured turns (response-latency.ts), as p50/p90 of the call.
    await t.ctx.db.update(conversations).set({ responseLatenciesMs: [900, 500, 700, 1100] }).where(eq(conversations.uuid, uuid));
    const measured = await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call`, as: admin.cookie });
    // 500, 700, 900, 1100: p50 800, p90 900 + 0.7 × 200 = 1040.
    expect(measured.json().call.responseLatencyMs).toEqual({ p50: 800, p90: 1040, turns: 4 });

    const granted = await buildUser(t.ctx);
    await grantAccount(t.ctx, granted.id, account.id);
    expect((await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call`, as: granted.cookie })).statusCode).toBe(200);
    const stranger = await buildUser(t.ctx);
    expect((await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call`, as: stranger.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call` })).statusCode).toBe(404);

    const chat = (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: type.id } })).json<{ uuid: string }>();
    expect((await t.request({ method: 'GET', url: `/api/conversation/${chat.uuid}/call` })).json()).toEqual({ call: null });
    expect((await t.request({ method: 'GET', url: '/api/conversation/not-a-uuid/call' })).statusCode).toBe(400);
    const count = await t.ctx.db.execute(sql`select count(*)::int as n from conversations where call_direction is not null`);
    expect(Number((count as unknown as { rows: { n: number }[] }).rows[0].n)).toBe(1);
  });

  it('validates the voice settings of a type config: voice.azureVoice and voice.voicemailMessage', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const save = (config: unknown) =>
      t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: JSON.stringify(config), headers: { 'content-type': 'text/plain' } });
    expect((await save({ voice: { azureVoice: 'en-US-AvaMultilingualNeural', voicemailMessage: 'Please call us back.' } })).statusCode).toBe(200);
    const badVoice = await save({ voice: { azureVoice: 'alloy' } });
    expect(badVoice.statusCode).toBe(400);
    expect(badVoice.json().error).toContain('voice.azureVoice');
    const emptyMessage = await save({ voice: { voicemailMessage: '  ' } });
    expect(emptyMessage.statusCode).toBe(400);
    expect(emptyMessage.json().error).toContain('voice.voicemailMessage');
  });
});
