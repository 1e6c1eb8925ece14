import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { twilioClient } from '../../channels/senders/twilio-client.ts';
import { ANALYSIS_JOB } from '../../conversations/conversation-outcome.ts';
import { loadConversation } from '../../conversations/conversation-store.ts';
import { conversations, conversationTypes, jobs, llmUsage, messages } from '../../db/schema/index.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { claimLikeTheRunner, reportedOutcomes, expireLease, runnerKilledOnEnqueue } from '../../test/job-scenarios.ts';
import { buildChannelAccount } from '../../test/channel-factories.ts';
import { buildAdmin } from '../../test/factories.ts';
import { buildConversation, buildConversationType, buildProspect } from '../../test/conversation-factories.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { startOpenAiRealtimeFake } from '../../test/fakes/openai-realtime-fake.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { TwilioMediaClient, twilioSid } from '../../test/twilio-media-client.ts';
import { postSigned } from '../voice-test-kit.ts';
import { advancePhase } from './call-store.ts';
import { ENDED_CALL_JOB, endedCallJob, endedCallJobKey } from './ended-call.job.ts';
import { MEDIA_STREAM_PATH } from './media-stream.routes.ts';
import { STREAM_BINDING_TTL_SECONDS, streamBinding, verifyStreamBinding } from '../urls.ts';
import { INPUT_TRANSCRIPTION_MODEL } from './session.ts';

const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
const AUTH_TOKEN = 'twilio-auth-token-123';
const NUMBER = '+15550001111';
const TRANSFER_TO = '+15550009999';
// Twilio signs the URL of the TwiML (PUBLIC_URL based), whatever address the server listens on.
const SIGNED_BASE = 'ws://localhost:3000';

const llm = useFake(new OpenAiFake());
let wsBase: string;
let typeId: number;
let accountId: number;
const clients: TwilioMediaClient[] = [];

const realtime = useFake(() => startOpenAiRealtimeFake({ apiKey: llm.env().OPENAI_API_KEY }));
const twilioApi = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
// One OpenAI key for both fakes: the realtime session and the chat calls (the rating of an ended call).
const t = useTestApp({ env: () => ({ ...llm.env(), ...realtime.env(), TWILIO_API_URL: twilioApi.url }) });
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsBase = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const type = await buildConversationType(t.ctx, { phases: 2, initialMessage: 'Hi, this is Sam from Widgets.' });
  await t.ctx.db
    .update(conversationTypes)
    .set({ config: JSON.stringify({ voice: { realtimeVoice: 'cedar', transferNumber: TRANSFER_TO } }) })
    .where(eq(conversationTypes.id, type.id));
  typeId = type.id;
  const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: NUMBER, token: AUTH_TOKEN, config: { accountSid: ACCOUNT_SID }, conversationTypeId: type.id });
  accountId = account.id;
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await t?.close();
  await realtime?.close();
  await twilioApi?.close();
});

/** A placed call (in the Twilio fake) and its prospect conversation, as the call-placing code leaves them. */
async function placedCall() {
  const call = await twilioClient(twilioApi.url, ACCOUNT_SID, AUTH_TOKEN).calls.create({ to: '+15557654321', from: NUMBER, url: 'http://localhost:3000/api/twilio/voice' });
  const prospect = await buildProspect(t.ctx, accountId);
  const conversation = await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId: prospect.id });
  await t.ctx.db.update(conversations).set({ callSid: call.sid, callDirection: 'outbound', useRealtimeApi: true }).where(eq(conversations.id, conversation.id));
  return { callSid: call.sid, conversation, twilioCall: () => twilioApi.calls.find((c) => c.sid === call.sid)! };
}

/** The stream path the call's TwiML names: its binding (uuid + CallSid, signed with APP_SECRET) as last segment. */
const streamPath = (call: { callSid: string; conversation: { uuid: string } }) =>
  `${MEDIA_STREAM_PATH}/${streamBinding(t.ctx.config, call.conversation.uuid, call.callSid)}`;

async function connect(path: string, authToken: string | null = AUTH_TOKEN, signedUrl = `${SIGNED_BASE}${path}`) {
  const client = await TwilioMediaClient.connect(`${wsBase}${path}`, { signedUrl, authToken });
  clients.push(client);
  return client;
}

/** A call whose stream has started and whose realtime session has been configured. */
async function liveCall() {
  const call = await placedCall();
  const sessionsBefore = realtime.sessions.length;
  const client = await connect(streamPath(call));
  client.connected();
  client.start({ accountSid: ACCOUNT_SID, callSid: call.callSid, customParameters: { conversationUuid: call.conversation.uuid } });
  const session = await realtime.session(sessionsBefore + 1);
  await session.waitFor('response.create');
  return { ...call, client, session };
}

const storedMessages = (conversationId: number) =>
  t.ctx.db.select({ role: messages.role, message: messages.message }).from(messages).where(eq(messages.conversationId, conversationId)).orderBy(messages.dateSent, messages.id);

describe('media stream bridge', () => {
  it('opens the realtime session only after start, with the GA session settings and the opening line', async () => {
    const call = await placedCall();
    const before = realtime.sessions.length;
    const client = await connect(streamPath(call));
    client.connected();
    client.media(randomBytes(160)); // before start: nowhere to go
    await client.roundTrip();
    expect(realtime.sessions.length).toBe(before);

    client.start({ accountSid: ACCOUNT_SID, callSid: call.callSid, customParameters: { conversationUuid: call.conversation.uuid } });
    const session = await realtime.session(before + 1);
    expect(session.model).toBe('gpt-realtime');
    const update = (await session.waitFor('session.update')).session as Record<string, any>;
    expect(update.type).toBe('realtime');
    expect(update.output_modalities).toEqual(['audio']);
    expect(update.audio.input).toEqual({ format: { type: 'audio/pcmu' }, turn_detection: { type: 'server_vad' }, transcription: { model: INPUT_TRANSCRIPTION_MODEL } });
    expect(update.audio.output).toEqual({ format: { type: 'audio/pcmu' }, voice: 'cedar' });
    expect(update.instructions).toContain('You sell test widgets.');
    expect(update.instructions).toMatch(/Phase 0 goal/);
    expect(update.instructions).toMatch(/Move on after phase 0/);
    expect(update.tools.map((tool: { name: string }) => tool.name)).toEqual(['advance_phase', 'end_call', 'transfer_call']);
    const opening = await session.waitFor('response.create');
    expect((opening.response as { instructions: string }).instructions).toContain('"Hi, this is Sam from Widgets."');
    // The session is configured before any caller audio reaches it.
    expect(session.events.map((e) => e.type).slice(0, 2)).toEqual(['session.update', 'response.create']);
  });

  it("follows the call's own TwiML: the <Stream> URL is the one signed, its <Parameter> names the conversation", async () => {
    const call = await placedCall();
    const answered = await postSigned(t, `/api/voice/calls/${call.conversation.uuid}/twiml`, { CallSid: call.callSid, AccountSid: ACCOUNT_SID, CallStatus: 'in-progress' }, { token: AUTH_TOKEN });
    expect(answered.statusCode).toBe(200);
    const streamUrl = answered.body.match(/<Stream url="([^"]+)"/)![1];
    const uuid = answered.body.match(/<Parameter name="conversationUuid" value="([^"]+)"/)![1];
    expect(new URL(streamUrl).pathname).toBe(streamPath(call));
    const before = realtime.sessions.length;
    const client = await connect(new URL(streamUrl).pathname, AUTH_TOKEN, streamUrl);
    client.connected();
    client.start({ accountSid: ACCOUNT_SID, callSid: call.callSid, customParameters: { conversationUuid: uuid } });
    const session = await realtime.session(before + 1);
    await session.waitFor('session.update');
  });

  it('answers an inbound call through the same bridge', async () => {
    const callSid = twilioSid('CA');
    const answered = await postSigned(t, '/api/twilio/voice', { CallSid: callSid, AccountSid: ACCOUNT_SID, From: '+15557770000', To: NUMBER, CallStatus: 'ringing' }, { token: AUTH_TOKEN });
    expect(answered.statusCode).toBe(200);
    const streamUrl = answered.body.match(/<Stream url="([^"]+)"/)![1];
    const uuid = answered.body.match(/<Parameter name="conversationUuid" value="([^"]+)"/)![1];
    const before = realtime.sessions.length;
    const client = await connect(new URL(streamUrl).pathname, AUTH_TOKEN, streamUrl);
    client.connected();
    client.start({ accountSid: ACCOUNT_SID, callSid, customParameters: { conversationUuid: uuid } });
    const session = await realtime.session(before + 1);
    await session.waitFor('response.create');
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.uuid, uuid));
    const stored = new Promise<void>((resolve) => {
      const off = t.ctx.events.on('conversation.changed', (e) => {
        if (e.conversationId === conversation.id) {
          off();
          resolve();
        }
      });
    });
    session.inputTranscript('item_in', 'Hi, I saw your ad.');
    await stored;
    expect(await storedMessages(conversation.id)).toEqual([{ role: 'PROSPECT', message: 'Hi, I saw your ad.' }]);
  });

  it('relays audio byte for byte in both directions, with a mark after each piece', async () => {
    const { client, session } = await liveCall();
    const frames = Array.from({ length: 25 }, () => randomBytes(160));
    for (const frame of frames) client.media(frame);
    await session.waitForAppends(frames.length);
    const appended = Buffer.concat(session.of('input_audio_buffer.append').map((e) => Buffer.from(e.audio as string, 'base64')));
    expect(appended.equals(Buffer.concat(frames))).toBe(true);

    // Deltas of odd sizes, one far above a 60 ms piece: cut into pieces, the bytes are unchanged.
    const deltas = [randomBytes(160), randomBytes(4001), randomBytes(7), randomBytes(480)];
    session.responseCreated('resp_1');
    for (const delta of deltas) session.audioDelta('resp_1', 'item_a', delta);
    const total = Buffer.concat(deltas);
    await client.until((c) => c.audio().length === total.length);
    expect(client.audio().equals(total)).toBe(true);
    const media = client.of('media');
    expect(Math.max(...media.map((m) => Buffer.from(m.media!.payload, 'base64').length))).toBeLessThanOrEqual(480);
    // Every media message is followed by its mark, all with Twilio's stream sid.
    const kinds = client.received.map((m) => m.event);
    expect(kinds.filter((k) => k === 'mark').length).toBe(media.length);
    kinds.forEach((kind, i) => expect(kind).toBe(i % 2 === 0 ? 'media' : 'mark'));
    expect(new Set(client.received.map((m) => m.streamSid))).toEqual(new Set([client.streamSid]));
  });

  it('barge-in: clears Twilio and truncates the item at the audio the marks say was played', async () => {
    const { client, session } = await liveCall();
    session.responseCreated('resp_1');
    // 3 pieces of 60 ms each.
    session.audioDelta('resp_1', 'item_a', randomBytes(480 * 3));
    await client.until((c) => c.of('mark').length === 3);
    const marks = client.of('mark').map((m) => m.mark!.name);
    client.mark(marks[0]);
    client.mark(marks[1]);
    await client.roundTrip();

    session.speechStarted('item_caller', 1000);
    const truncate = await session.waitFor('conversation.item.truncate');
    expect(truncate).toMatchObject({ item_id: 'item_a', content_index: 0, audio_end_ms: 120 });
    await client.until((c) => c.of('clear').length === 1);
    expect(client.received.at(-1)).toEqual({ event: 'clear', streamSid: client.streamSid });

    // Late audio of the cut item is dropped; the next item plays.
    const played = client.of('media').length;
    session.audioDelta('resp_1', 'item_a', randomBytes(160));
    session.audioDelta('resp_2', 'item_b', randomBytes(160));
    await client.until((c) => c.of('media').length === played + 1);
    await client.roundTrip();
    expect(client.of('media').length).toBe(played + 1);
    // Twilio echoes the cleared mark: it is not taken as played, and a second barge-in truncates item_b at 0.
    client.mark(marks[2]);
    await client.roundTrip();
    session.speechStarted('item_caller_2');
    const second = await session.waitFor('conversation.item.truncate', 2);
    expect(second).toMatchObject({ item_id: 'item_b', audio_end_ms: 0 });
  });

  it('stores the transcripts as PROSPECT and AGENT messages and tells the detail page', async () => {
    const { session, conversation } = await liveCall();
    const changes: number[] = [];
    const stored = new Promise<void>((resolve) => {
      const off = t.ctx.events.on('conversation.changed', (e) => {
        if (e.conversationId !== conversation.id) return;
        changes.push(e.conversationId);
        if (changes.length === 2) {
          off();
          resolve();
        }
      });
    });
    session.responseCreated('resp_1');
    session.audioDelta('resp_1', 'item_agent', randomBytes(160));
    session.outputTranscript('resp_1', 'item_agent', 'Hi, this is Sam from Widgets.');
    session.speechStarted('item_caller');
    session.inputTranscript('item_caller', 'Hello, who is this?');
    await stored;
    expect(await storedMessages(conversation.id)).toEqual([
      { role: 'AGENT', message: 'Hi, this is Sam from Widgets.' },
      { role: 'PROSPECT', message: 'Hello, who is this?' },
    ]);
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(row.messagesCount).toBe(2);
  });

  it("stores the agent's response latency per caller turn: speech stopped → first audio sent to Twilio", async () => {
    const { client, session, conversation } = await liveCall();
    const latencies = async () => (await t.ctx.db.select({ ms: conversations.responseLatenciesMs }).from(conversations).where(eq(conversations.id, conversation.id)))[0].ms;
    // The opening line answers nobody: no sample.
    session.responseCreated('resp_0');
    session.audioDelta('resp_0', 'item_open', randomBytes(160));
    await client.until((c) => c.of('media').length === 1);
    session.speechStarted('item_caller');
    const stoppedBefore = performance.now();
    session.speechStopped('item_caller', 1200);
    session.responseCreated('resp_1');
    session.audioDelta('resp_1', 'item_a', randomBytes(160));
    session.audioDelta('resp_1', 'item_a', randomBytes(160));
    await client.until((c) => c.of('media').length === 3);
    const upperBound = performance.now() - stoppedBefore;
    await vi.waitFor(async () => expect(await latencies()).toHaveLength(1));
    const [ms] = (await latencies())!;
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(ms).toBeLessThanOrEqual(Math.ceil(upperBound));
    // A second turn adds a second sample.
    session.speechStarted('item_caller_2');
    session.speechStopped('item_caller_2', 3000);
    session.audioDelta('resp_2', 'item_b', randomBytes(160));
    await vi.waitFor(async () => expect(await latencies()).toHaveLength(2));
  });

  it('books the tokens of each response on the conversation', async () => {
    const { session, conversation } = await liveCall();
    session.responseCreated('resp_1');
    session.responseDone('resp_1', {
      total_tokens: 1500,
      input_tokens: 500,
      output_tokens: 1000,
      input_token_details: { text_tokens: 100, audio_tokens: 400, cached_tokens: 0 },
      output_token_details: { text_tokens: 200, audio_tokens: 800 },
    });
    await vi.waitFor(async () => {
      const [usage] = await t.ctx.db.select().from(llmUsage).where(eq(llmUsage.conversationId, conversation.id));
      expect(usage).toMatchObject({ purpose: 'realtime', model: 'gpt-realtime', promptTokens: 500, completionTokens: 1000 });
    });
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    // 100 text in × $4 + 400 audio in × $32 + 200 text out × $16 + 800 audio out × $64 per million.
    expect(row.costUsd).toBeCloseTo((100 * 4 + 400 * 32 + 200 * 16 + 800 * 64) / 1e6, 9);
    expect(row).toMatchObject({ promptTokens: 500, completionTokens: 1000 });
  });

  it('advance_phase moves the phase and re-instructs the session for the next one', async () => {
    const { session, conversation } = await liveCall();
    session.responseCreated('resp_1');
    const callId = session.functionCall('resp_1', 'advance_phase', { reason: 'interested' });
    session.responseDone('resp_1');
    const update = await session.waitFor('session.update', 2);
    expect((update.session as { instructions: string }).instructions).toMatch(/Phase 1 goal/);
    const output = await session.waitFor('conversation.item.create');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: callId });
    expect(JSON.parse((output.item as { output: string }).output)).toEqual({ ok: true, phase: 2 });
    await session.waitFor('response.create', 2);
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(row.phase).toBe(1);

    // Past the last phase the conversation ends (phase N) and the tool is withdrawn.
    session.responseCreated('resp_2');
    session.functionCall('resp_2', 'advance_phase');
    session.responseDone('resp_2');
    const last = await session.waitFor('session.update', 3);
    expect((last.session as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(['end_call', 'transfer_call']);
    const [ended] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(ended.phase).toBe(2);
  });

  it('advance_phase into the last phase ends the call like a chat: rated, and the CRM ended write-back queued with the rating', async () => {
    const { session, conversation } = await liveCall();
    const id = conversation.id;
    await t.ctx.db.update(conversations).set({ crmContactId: `ct-realtime-${id}` }).where(eq(conversations.id, id));
    llm.on('conversation_rating', { json: { rating: 9, reason: 'booked a visit' } });
    // The call's transcript so far.
    const lines = new Promise<void>((resolve) => {
      const off = t.ctx.events.on('conversation.changed', async (e) => {
        if (e.conversationId !== id || (await storedMessages(id)).length < 2) return;
        off();
        resolve();
      });
    });
    session.responseCreated('resp_0');
    session.outputTranscript('resp_0', 'item_agent', 'Shall I book you for Tuesday?');
    session.speechStarted('item_caller');
    session.inputTranscript('item_caller', 'Yes, Tuesday works.');
    session.responseDone('resp_0');
    await lines;

    // Phase 0 → 1, then 1 → 2 = N (the type has two phases).
    session.responseCreated('resp_1');
    session.functionCall('resp_1', 'advance_phase');
    session.responseDone('resp_1');
    await session.waitFor('session.update', 2);
    session.responseCreated('resp_2');
    session.functionCall('resp_2', 'advance_phase');
    session.responseDone('resp_2');
    await session.waitFor('session.update', 3);
    const [ended] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, id));
    expect(ended.phase).toBe(2);
    // The end committed with its job; the live call did not wait for the rating.
    const [queued] = await t.ctx.db.select().from(jobs).where(eq(jobs.singletonKey, endedCallJobKey(id)));
    expect(queued).toMatchObject({ name: ENDED_CALL_JOB, status: 'pending' });
    const writeBacks = () => reportedOutcomes(t.ctx, id);
    expect(await writeBacks()).toEqual([]);

    // Claimed as the runner claims it; the process dies as it queues the write-back.
    await claimLikeTheRunner(t.ctx, queued.id);
    const dying = runnerKilledOnEnqueue(t.ctx, ANALYSIS_JOB, 'killed while queueing the CRM write-back');
    const claim = { id: queued.id, name: ENDED_CALL_JOB, attempts: 1, maxAttempts: 8 };
    await expect(endedCallJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow('killed while queueing the CRM write-back');
    expect((await t.ctx.db.select().from(conversations).where(eq(conversations.id, id)))[0].rating).toBeNull();
    expect(await writeBacks()).toEqual([]);

    // Its lease runs out (the test lets that time pass) and the runner runs it again.
    await expireLease(t.ctx, queued.id);
    const before = llm.requests.length;
    await t.ctx.jobs.drain();
    const [rated] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, id));
    expect(rated).toMatchObject({ phase: 2, rating: 9 });
    expect(await writeBacks()).toEqual(['ended']);
    // The drain may rate other tests' ended calls at the same time (jobs run concurrently): this call's rating
    // is the one that read its transcript.
    const ratings = llm.requests.slice(before).filter((r) => r.schemaName === 'conversation_rating');
    expect(ratings.map((r) => JSON.stringify(r.messages)).filter((m) => m.includes('Yes, Tuesday works.'))).toHaveLength(1);
    const [done] = await t.ctx.db.select().from(jobs).where(eq(jobs.id, queued.id));
    expect(done.status).toBe('done');
  });

  it('advance_phase into the last phase commits nothing when its job cannot be queued, and an admin moving the call meanwhile gets no write-back', async () => {
    const { conversation } = await placedCall();
    const id = conversation.id;
    await t.ctx.db.update(conversations).set({ phase: 1, crmContactId: `ct-realtime-${id}` }).where(eq(conversations.id, id));
    const loaded = (await loadConversation(t.ctx, id))!;
    const dying = runnerKilledOnEnqueue(t.ctx, ENDED_CALL_JOB, 'killed while queueing the ended call');
    await expect(advancePhase({ ...t.ctx, jobs: dying }, loaded, 1)).rejects.toThrow('killed while queueing the ended call');
    expect((await t.ctx.db.select().from(conversations).where(eq(conversations.id, id)))[0].phase).toBe(1);

    expect(await advancePhase(t.ctx, loaded, 1)).toBe(2);
    // An admin sets a working phase again before the job runs: nothing is rated or reported.
    await t.ctx.db.update(conversations).set({ phase: 0 }).where(eq(conversations.id, id));
    await t.ctx.jobs.drain();
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, id));
    expect(row).toMatchObject({ phase: 0, rating: null });
    expect(await reportedOutcomes(t.ctx, id)).toEqual([]);
  });

  it('end_call lets the goodbye play, then completes the call through Twilio', async () => {
    const { session, client, twilioCall } = await liveCall();
    session.responseCreated('resp_1');
    session.audioDelta('resp_1', 'item_bye', randomBytes(480 * 2));
    const callId = session.functionCall('resp_1', 'end_call');
    session.responseDone('resp_1');
    const output = await session.waitFor('conversation.item.create');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: callId });
    await client.until((c) => c.of('mark').length === 2);
    // The goodbye has said something: no further response is asked for, and the call waits for the marks.
    client.mark(client.of('mark')[0].mark!.name);
    await client.roundTrip();
    expect(twilioCall().updates).toEqual([]);
    expect(session.of('response.create')).toHaveLength(1);

    client.mark(client.of('mark')[1].mark!.name);
    await vi.waitFor(() => expect(twilioCall().updates).toEqual([{ Status: 'completed' }]));
    const last = twilioApi.requests.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: `/2010-04-01/Accounts/${ACCOUNT_SID}/Calls/${twilioCall().sid}.json`, authorized: true });
  });

  it('end_call without a goodbye asks for one; a refused response does not hold the hang-up', async () => {
    const { session, twilioCall } = await liveCall();
    session.responseCreated('resp_1');
    session.functionCall('resp_1', 'end_call');
    session.responseDone('resp_1');
    await session.waitFor('response.create', 2);
    expect(twilioCall().updates).toEqual([]);
    session.send({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: 'busy' } });
    await vi.waitFor(() => expect(twilioCall().updates).toEqual([{ Status: 'completed' }]));
  });

  it('end_call still hangs up (closes the stream) when Twilio refuses the update', async () => {
    const { session, client } = await liveCall();
    twilioApi.failNext('Calls', { status: 400, code: 21220 });
    session.responseCreated('resp_1');
    session.audioDelta('resp_1', 'item_bye', randomBytes(160));
    session.functionCall('resp_1', 'end_call');
    session.responseDone('resp_1');
    await client.until((c) => c.of('mark').length === 1);
    client.mark(client.of('mark')[0].mark!.name);
    expect(await client.whenClosed()).toBe(1000);
    await session.whenClosed();
  });

  it('transfer_call announces the transfer, then dials the configured number', async () => {
    const { session, client, twilioCall } = await liveCall();
    session.responseCreated('resp_1');
    const callId = session.functionCall('resp_1', 'transfer_call', { reason: 'wants a person' });
    session.responseDone('resp_1');
    const output = await session.waitFor('conversation.item.create');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: callId, output: JSON.stringify({ ok: true }) });
    // Nothing was said yet: the model gets a response to announce the transfer.
    await session.waitFor('response.create', 2);
    session.responseCreated('resp_2');
    session.audioDelta('resp_2', 'item_transfer', randomBytes(160));
    session.responseDone('resp_2');
    await client.until((c) => c.of('mark').length === 1);
    await client.roundTrip();
    expect(twilioCall().updates).toEqual([]);
    client.mark(client.of('mark')[0].mark!.name);
    await vi.waitFor(() => expect(twilioCall().updates).toEqual([{ Twiml: `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>${TRANSFER_TO}</Dial></Response>` }]));
  });

  it('ends the call politely when the realtime session drops, and stops cleanly on stop', async () => {
    const { session, client, twilioCall, callSid } = await liveCall();
    session.close(1011);
    await vi.waitFor(() => expect(twilioCall().updates).toEqual([{ Twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, something went wrong.</Say><Hangup/></Response>' }]));
    expect(await client.whenClosed()).toBe(1000);

    const second = await liveCall();
    second.client.stop(ACCOUNT_SID, callSid);
    await second.session.whenClosed();
    expect(await second.client.whenClosed()).toBe(1000);
  });

  it('ends the call politely when OpenAI refuses the session', async () => {
    const call = await placedCall();
    realtime.refuseNext(500);
    const refusedBefore = realtime.refused;
    const client = await connect(streamPath(call));
    client.connected();
    client.start({ accountSid: ACCOUNT_SID, callSid: call.callSid, customParameters: { conversationUuid: call.conversation.uuid } });
    await vi.waitFor(() => expect(call.twilioCall().updates).toEqual([{ Twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, something went wrong.</Say><Hangup/></Response>' }]));
    expect(realtime.refused).toBe(refusedBefore + 1);
    expect(await client.whenClosed()).toBe(1000);
  });

  it('validates the voice settings of a type config (realtimeVoice, transferNumber)', async () => {
    const admin = await buildAdmin(t.ctx);
    const save = (config: unknown) =>
      t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/config`, as: admin.cookie, payload: JSON.stringify(config), headers: { 'content-type': 'text/plain' } });
    const badVoice = await save({ voice: { realtimeVoice: 'robot' } });
    expect(badVoice.statusCode).toBe(400);
    expect(badVoice.json().error).toContain('realtimeVoice');
    const badNumber = await save({ voice: { transferNumber: '555-0199' } });
    expect(badNumber.statusCode).toBe(400);
    expect(badNumber.json().error).toContain('E.164');
    const good = { voice: { realtimeVoice: 'cedar', transferNumber: TRANSFER_TO } };
    expect((await save(good)).statusCode).toBeLessThan(300);
  });

  it("keeps the session open after the caller's stop until their last line is transcribed", async () => {
    const { session, client, conversation, callSid } = await liveCall();
    session.speechStarted('item_last');
    await vi.waitFor(() => expect(client.of('clear')).toHaveLength(1));
    client.stop(ACCOUNT_SID, callSid);
    expect(await client.whenClosed()).toBe(1000);
    expect(session.closed).toBe(false);
    session.inputTranscript('item_last', 'Okay, bye.');
    await session.whenClosed();
    await vi.waitFor(async () => expect(await storedMessages(conversation.id)).toEqual([{ role: 'PROSPECT', message: 'Okay, bye.' }]));
  });

  describe('refused streams (nothing opened, nothing stored)', () => {
    const refusedStart = async (client: TwilioMediaClient, call: Awaited<ReturnType<typeof placedCall>>, overrides: Partial<{ accountSid: string; uuid: string }> = {}) => {
      const before = realtime.sessions.length;
      client.connected();
      client.start({ accountSid: overrides.accountSid ?? ACCOUNT_SID, callSid: call.callSid, customParameters: { conversationUuid: overrides.uuid ?? call.conversation.uuid } });
      client.media(randomBytes(160));
      expect(await client.whenClosed()).toBe(1008);
      expect(realtime.sessions.length).toBe(before);
      expect(await storedMessages(call.conversation.id)).toEqual([]);
    };

    it('closes a stream signed with another token', async () => {
      const call = await placedCall();
      await refusedStart(await connect(streamPath(call), 'not-the-token'), call);
    });

    it('closes an unsigned stream', async () => {
      const call = await placedCall();
      await refusedStart(await connect(streamPath(call), null), call);
    });

    it('closes a stream signed for another URL', async () => {
      const call = await placedCall();
      await refusedStart(await connect(streamPath(call), AUTH_TOKEN, `wss://evil.example${streamPath(call)}`), call);
    });

    it('closes a stream for an unknown conversation or another call', async () => {
      const call = await placedCall();
      await refusedStart(await connect(streamPath(call)), call, { uuid: '00000000-0000-4000-8000-000000000000' });
      const unknown = { ...call, conversation: { ...call.conversation, uuid: '00000000-0000-4000-8000-000000000000' } };
      await refusedStart(await connect(streamPath(unknown)), unknown);
      const other = await placedCall();
      await refusedStart(await connect(streamPath(other)), other, { accountSid: `AC${'2'.repeat(32)}` });
      // A chat of the same account is not a call.
      const chat = await placedCall();
      await t.ctx.db.update(conversations).set({ callDirection: null }).where(eq(conversations.id, chat.conversation.id));
      await refusedStart(await connect(streamPath(chat)), chat);
    });

    // Issue 18 item 8: the stream finds its conversation from a binding signed per call, not from <Parameter>.
    it('closes a signed stream without a binding, whatever its <Parameter> names', async () => {
      const call = await placedCall();
      await refusedStart(await connect(MEDIA_STREAM_PATH), call);
    });

    it("closes a stream presenting another call's binding, or its own binding with another call's CallSid", async () => {
      const victim = await placedCall();
      const attacker = await placedCall();
      // The attacker's own (valid, signed) stream URL, naming the victim's conversation in <Parameter>.
      await refusedStart(await connect(streamPath(attacker)), attacker, { uuid: victim.conversation.uuid });
      // The victim's binding replayed on a stream that `start`s another call.
      await refusedStart(await connect(streamPath(victim)), attacker);
      // A binding whose conversation does not belong to the CallSid it names.
      const crossed = { ...attacker, conversation: victim.conversation };
      await refusedStart(await connect(streamPath(crossed)), crossed);
      expect(await storedMessages(victim.conversation.id)).toEqual([]);
    });

    it('closes a stream with a forged, altered or expired binding', async () => {
      const call = await placedCall();
      const binding = streamBinding(t.ctx.config, call.conversation.uuid, call.callSid);
      const [uuid, sid, expires, signature] = binding.split('.');
      const forged = `${uuid}.${sid}.${expires}.${'A'.repeat(43)}`;
      const later = `${uuid}.${sid}.${Number(expires) + 3600}.${signature}`;
      const expired = streamBinding(t.ctx.config, call.conversation.uuid, call.callSid, Date.now() - (STREAM_BINDING_TTL_SECONDS + 60) * 1000);
      for (const bad of [forged, later, expired, 'not-a-binding']) await refusedStart(await connect(`${MEDIA_STREAM_PATH}/${bad}`), call);
      expect(verifyStreamBinding(t.ctx.config, binding)).toEqual({ conversationUuid: call.conversation.uuid, callSid: call.callSid });
    });
  });
});
