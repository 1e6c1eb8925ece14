import { and, eq, like, sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ANALYSIS_JOB } from '../conversations/conversation-outcome.ts';
import { conversations, jobs, unansweredConversations, webhookInbox } from '../db/schema/index.ts';
import { VOICE_CALLBACK_SOURCE } from './callback-identity.ts';
import type { TestApp } from '../test/build-test-app.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { reportedOutcomes, runnerKilledOnEnqueue } from '../test/job-scenarios.ts';
import { untilLockWait, withDatabase } from '../test/test-database.ts';
import { postTwilioSms, PUBLIC_URL, settle } from '../test/channel-factories.ts';
import { withConversationLock } from '../conversations/conversation-lock.ts';
import { isOnLiveCall, LONGEST_CALL_MS } from '../conversations/phase-moves.ts';
import { buildUser, type TestUser } from '../test/factories.ts';
import { startAzureTtsFake } from '../test/fakes/azure-tts-fake.ts';
import { startTwilioFake, type TwilioFake } from '../test/fakes/twilio-fake.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import { loadCallByUuid } from './call-context.ts';
import { applyStatusCallback } from './call-status.ts';
import { GOODBYE, GOODBYE_SILENT, STILL_THERE } from './classic.ts';
import { DEFAULT_CALL_DISCLOSURE, DEFAULT_RECORDING_NOTICE } from '@sales-agent/shared/schemas/conversation-type-config';

const CALL_NOTICES = `${DEFAULT_CALL_DISCLOSURE} ${DEFAULT_RECORDING_NOTICE}`;
import { recordingStorageKey, verifyStreamBinding } from './urls.ts';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  AZURE_KEY,
  buildCallSetup,
  CALLEE,
  callForm,
  callRow,
  freshStorageDir,
  localPath,
  messagesOfCall,
  OUR_NUMBER,
  outboxOfCall,
  postSigned,
  spokenParts,
} from './voice-test-kit.ts';

/**
 * The Twilio voice callbacks (docs/voice.md) on PGlite/PostgreSQL against the loopback Twilio REST and Azure
 * TTS fakes; callbacks are signed as Twilio signs them. The agent is the offline demo agent (no LLM key), which
 * moves one phase per prospect message and answers from the phase prompt.
 */
describe('voice callbacks', () => {
  const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
  const azure = useFake(() => startAzureTtsFake({ key: AZURE_KEY }));
  const t = useTestApp({
    env: () => ({
      TWILIO_API_URL: twilioFake.url,
      AZURE_TTS_KEY: AZURE_KEY,
      AZURE_TTS_URL: azure.endpoint,
      PUBLIC_URL,
      STORAGE_DIR: freshStorageDir(),
    }),
  });
  const admin = useUser(t, 'ADMIN');

  /** Places a call through the API and answers its uuid and CallSid. */
  async function placeCall(typeId: number, useRealtimeApi: boolean, contactId?: string) {
    const res = await t.request({ method: 'POST', url: `/api/admin/call/${CALLEE}`, payload: { conversationTypeId: typeId, useRealtimeApi, contactId }, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    const uuid = res.json<{ uuid: string }>().uuid;
    const row = await callRow(t.ctx, uuid);
    return { uuid, sid: row.callSid!, id: row.id };
  }

  it('answers a realtime call with the Stream TwiML of the media-stream bridge, the conversation in a <Parameter>', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const { uuid, sid } = await placeCall(type.id, true);
    const res = await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/xml');
    // The stream URL ends in the call's binding (uuid + CallSid, signed with APP_SECRET; issue 18 item 8).
    const binding = /media-stream\/([^"]+)"/.exec(res.body)![1];
    expect(verifyStreamBinding(t.ctx.config, binding)).toEqual({ conversationUuid: uuid, callSid: sid });
    expect(res.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="en-US">${CALL_NOTICES}</Say><Connect><Stream url="ws://localhost:3000/api/voice/media-stream/${binding}">` +
        `<Parameter name="conversationUuid" value="${uuid}"/></Stream></Connect></Response>`,
    );
    expect((await callRow(t.ctx, uuid)).callStatus).toBe('in-progress');
  });

  it('refuses every callback with a missing or wrong signature, or for an unknown call, with 403 and changes nothing', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const { uuid, sid } = await placeCall(type.id, false);
    const paths = ['twiml', 'status', 'recording', 'amd', 'gather?silences=0'].map((p) => `/api/voice/calls/${uuid}/${p}`);
    const form = callForm(sid, { CallStatus: 'completed', CallDuration: '30', AnsweredBy: 'machine_end_beep', SpeechResult: 'hello', RecordingStatus: 'completed', RecordingUrl: 'https://api.twilio.com/x', RecordingDuration: '3' });
    for (const path of paths) {
      expect((await postSigned(t, path, form, { signature: null })).statusCode, path).toBe(403);
      expect((await postSigned(t, path, form, { token: 'not-the-token' })).statusCode, path).toBe(403);
      // Signed over another URL (the signature covers the query too).
      const other = await postSigned(t, path, form, { signature: (await import('twilio')).default.getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}x`, form) });
      expect(other.statusCode, path).toBe(403);
    }
    const unknown = await postSigned(t, '/api/voice/calls/00000000-0000-4000-8000-000000000000/status', form);
    expect(unknown.statusCode).toBe(403);
    expect((await postSigned(t, '/api/voice/calls/nope/status', form)).statusCode).toBe(403);
    const row = await callRow(t.ctx, uuid);
    expect(row).toMatchObject({ callStatus: 'queued', callDuration: null, answeredBy: null, recordingUrl: null, messagesCount: 0, callCostUsd: 0 });
    expect(await t.ctx.jobs.drain()).toBe(0);
  });

  it('classic pipeline: the opening line and each agent reply are Azure audio played from our signed URL inside a speech <Gather>', async () => {
    const { type } = await buildCallSetup(t.ctx, { phases: 3, initialMessage: 'Hi, this is Sam from Widgets & Co. Do you have a minute?', config: { voice: { name: 'en-GB-SoniaNeural' } } });
    const { uuid, sid, id } = await placeCall(type.id, false);

    const answer = await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
    expect(answer.statusCode).toBe(200);
    const action = `${PUBLIC_URL}/api/voice/calls/${uuid}/gather?silences=0`;
    expect(answer.body).toContain(`<Gather input="speech" speechTimeout="auto" action="${action.replace('&', '&amp;')}" method="POST" actionOnEmptyResult="true" language="en-GB">`);
    const opening = spokenParts(answer.body);
    // The AI disclosure and recording notice first, outside the <Gather> (not to be talked over).
    expect(opening.says).toEqual([CALL_NOTICES]);
    expect(answer.body.indexOf('</Say>')).toBeLessThan(answer.body.indexOf('<Gather'));
    expect(opening.plays).toHaveLength(1);
    expect(opening.plays[0]).toMatch(new RegExp(`^${PUBLIC_URL}/api/voice/speech/[\\w-]+/[0-9a-f-]{36}\\.mp3$`));
    const audio = await t.request({ method: 'GET', url: localPath(opening.plays[0]) });
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/mpeg');
    expect(audio.rawPayload.equals(azure.audioFor('Hi, this is Sam from Widgets & Co. Do you have a minute?'))).toBe(true);
    const tts = azure.requests.at(-1)!;
    expect(tts).toMatchObject({ key: AZURE_KEY, contentType: 'application/ssml+xml', outputFormat: 'audio-16khz-32kbitrate-mono-mp3', voice: 'en-GB-SoniaNeural', language: 'en-GB' });
    expect(tts.ssml).toContain('Widgets &amp; Co.');

    // The caller speaks: the same agent turn as a chat, answered on the line.
    const turn = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, callForm(sid, { CallStatus: 'in-progress', SpeechResult: 'Yes, I need twenty widgets.', Confidence: '0.92' }));
    expect(turn.statusCode).toBe(200);
    expect(turn.body).toContain('<Gather input="speech"');
    const stored = await messagesOfCall(t.ctx, id);
    expect(stored.map((m) => m.role)).toEqual(['AGENT', 'PROSPECT', 'AGENT']);
    expect(stored[1].message).toBe('Yes, I need twenty widgets.');
    const reply = stored[2].message.replace('[Demo agent (offline)] ', '');
    const replyAudio = await t.request({ method: 'GET', url: localPath(spokenParts(turn.body).plays[0]) });
    expect(replyAudio.rawPayload.equals(azure.audioFor(reply))).toBe(true);
    expect(azure.requests.at(-1)!.text).toBe(reply);

    // Spoken, so neither queued as an SMS to the callee nor followed up later.
    expect(await outboxOfCall(t.ctx, id)).toEqual([]);
    expect(await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.conversationId, id))).toEqual([]);
    const row = await callRow(t.ctx, uuid);
    expect(row.phase).toBe(1);
    const characters = 'Hi, this is Sam from Widgets & Co. Do you have a minute?'.length + reply.length;
    expect(row.ttsCharacters).toBe(characters);
    // TTS at 15 per million characters plus one 15-second unit of speech recognition (0.02), priced from prices.json.
    expect(row.callCostUsd).toBeCloseTo((characters * 15) / 1_000_000 + 0.02, 10);
    expect(row.costUsd).toBeCloseTo(row.callCostUsd, 10);
  });

  it('serves speech audio only under a valid signature', async () => {
    const { type } = await buildCallSetup(t.ctx, { initialMessage: 'Hello there' });
    const { uuid, sid } = await placeCall(type.id, false);
    const url = localPath(spokenParts((await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid))).body).plays[0]);
    const [, , , , signature, key] = url.split('/');
    expect((await t.request({ method: 'GET', url: `/api/voice/speech/${signature.slice(1)}x/${key}` })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/api/voice/speech/${signature}/${key.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}` })).statusCode).toBe(404);
    const partial = await t.request({ method: 'GET', url, headers: { range: 'bytes=0-2' } });
    expect(partial.statusCode).toBe(206);
    expect(partial.body).toBe('ID3');
  });

  it('ends the call politely after two silent turns', async () => {
    const { type } = await buildCallSetup(t.ctx, { initialMessage: null });
    const { uuid, sid, id } = await placeCall(type.id, false);
    const first = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, callForm(sid));
    expect(first.body).toContain(`action="${PUBLIC_URL}/api/voice/calls/${uuid}/gather?silences=1"`);
    expect(azure.requests.at(-1)!.text).toBe(STILL_THERE);
    const second = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=1`, callForm(sid, { SpeechResult: '' }));
    expect(second.body).not.toContain('<Gather');
    expect(second.body).toMatch(/<Play>[^<]+<\/Play><Hangup\/><\/Response>$/);
    expect(azure.requests.at(-1)!.text).toBe(GOODBYE_SILENT);
    expect(await messagesOfCall(t.ctx, id)).toEqual([]);
  });

  it('a signed <Gather> callback replayed 5 times stores the caller\'s line once, runs one turn and answers the same', async () => {
    const { type } = await buildCallSetup(t.ctx, { phases: 3, initialMessage: null });
    const { uuid, sid, id } = await placeCall(type.id, false);
    const form = callForm(sid, { CallStatus: 'in-progress', SpeechResult: 'Yes, I need twenty widgets.', Confidence: '0.92' });
    const first = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, form);
    expect(first.statusCode).toBe(200);
    const after = await callRow(t.ctx, uuid);
    for (let i = 0; i < 5; i += 1) {
      const again = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, form);
      expect(again.statusCode).toBe(200);
      expect(again.body).toBe(first.body);
    }
    expect((await messagesOfCall(t.ctx, id)).map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
    // One turn (one phase moved), one speech-recognition unit booked.
    expect(await callRow(t.ctx, uuid)).toMatchObject({ phase: 1, messagesCount: after.messagesCount, callCostUsd: after.callCostUsd });

    // The same words said again are another request (another Confidence): heard and answered.
    const next = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, { ...form, Confidence: '0.87' });
    expect(next.statusCode).toBe(200);
    expect((await messagesOfCall(t.ctx, id)).map((m) => m.role)).toEqual(['PROSPECT', 'AGENT', 'PROSPECT', 'AGENT']);

    // A replayed silent turn books its recognition once too.
    const silent = callForm(sid, { SpeechResult: '' });
    const costBefore = (await callRow(t.ctx, uuid)).callCostUsd;
    const quiet = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, silent);
    const costAfter = (await callRow(t.ctx, uuid)).callCostUsd;
    expect(costAfter).toBeGreaterThan(costBefore);
    for (let i = 0; i < 5; i += 1) expect((await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, silent)).body).toBe(quiet.body);
    expect((await callRow(t.ctx, uuid)).callCostUsd).toBe(costAfter);
  });

  it('status, answering-machine and recording callbacks replayed change nothing again; a new event is still applied', async () => {
    const { type } = await buildCallSetup(t.ctx, { initialMessage: null });
    const { uuid, sid, id } = await placeCall(type.id, true);
    const recording = callForm(sid, { RecordingSid: `RE${'3'.repeat(32)}`, RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Recordings/RE${'3'.repeat(32)}`, RecordingStatus: 'completed', RecordingDuration: '12' });
    expect((await postSigned(t, `/api/voice/calls/${uuid}/recording`, recording)).statusCode).toBe(200);
    const recordingJobs = () => t.ctx.db.select().from(jobs).where(eq(jobs.singletonKey, `voice-recording:${id}`));
    expect(await recordingJobs()).toHaveLength(1);
    // The download ran (or was given up): a replay must not fetch the recording again.
    await t.ctx.db.update(jobs).set({ status: 'done' }).where(eq(jobs.singletonKey, `voice-recording:${id}`));
    for (let i = 0; i < 5; i += 1) expect((await postSigned(t, `/api/voice/calls/${uuid}/recording`, recording)).statusCode).toBe(200);
    expect(await recordingJobs()).toHaveLength(1);

    const ringing = callForm(sid, { CallStatus: 'ringing', SequenceNumber: '0' });
    const answered = callForm(sid, { CallStatus: 'in-progress', SequenceNumber: '1' });
    await postSigned(t, `/api/voice/calls/${uuid}/status`, ringing);
    await postSigned(t, `/api/voice/calls/${uuid}/status`, answered);
    expect((await callRow(t.ctx, uuid)).callStatus).toBe('in-progress');
    const identities = () => t.ctx.db.select().from(webhookInbox).where(and(eq(webhookInbox.source, VOICE_CALLBACK_SOURCE), like(webhookInbox.externalId, `${sid}:%`)));
    const seen = (await identities()).length;
    for (let i = 0; i < 5; i += 1) {
      expect((await postSigned(t, `/api/voice/calls/${uuid}/status`, answered)).statusCode).toBe(200);
      expect((await postSigned(t, `/api/voice/calls/${uuid}/amd`, callForm(sid, { AnsweredBy: 'human' }))).statusCode).toBe(200);
    }
    // One identity per distinct request (the amd callback's once), whatever the replays.
    expect((await identities()).length).toBe(seen + 1);
    // Nothing of the call is kept with the identity.
    expect((await identities()).every((row) => JSON.stringify(row.payload) === '{}')).toBe(true);
  });

  it('hangs up with a goodbye once the turn ends the playbook, rated with the CRM ended write-back like a chat', async () => {
    const { type } = await buildCallSetup(t.ctx, { phases: 1, initialMessage: null });
    const { uuid, sid, id } = await placeCall(type.id, false, 'ct-classic-ended');
    await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
    const res = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, callForm(sid, { SpeechResult: 'Sounds good, send it over.' }));
    expect(res.body).not.toContain('<Gather');
    expect(res.body).toContain('<Hangup/>');
    expect(azure.requests.at(-1)!.text).toBe(GOODBYE);
    // The classic call's turn is the chat's turn: the end, its rating (the demo agent's) and the write-back.
    expect(await callRow(t.ctx, uuid)).toMatchObject({ phase: 1, rating: 5 });
    const outcomes = () => reportedOutcomes(t.ctx, id);
    expect(await outcomes()).toEqual(['ended']);
    // The call then completes at N: no second (unfinished) note.
    await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: 'completed', CallDuration: '30' }));
    expect(await outcomes()).toEqual(['ended']);
  });

  it('keeps the call status moving forward only, and books the minutes of the first final callback once', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const { uuid, sid } = await placeCall(type.id, true);
    const status = (CallStatus: string, extra: Record<string, string> = {}) =>
      postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus, ...extra }));
    for (const s of ['initiated', 'ringing', 'in-progress']) {
      expect((await status(s)).statusCode).toBe(200);
      expect((await callRow(t.ctx, uuid)).callStatus).toBe(s);
    }
    await status('ringing');
    expect((await callRow(t.ctx, uuid)).callStatus).toBe('in-progress');
    await status('completed', { CallDuration: '65' });
    await status('completed', { CallDuration: '65' });
    const row = await callRow(t.ctx, uuid);
    expect(row).toMatchObject({ callStatus: 'completed', callDuration: 65 });
    expect(row.callCostUsd).toBeCloseTo(2 * 0.014, 10);

    const info = await t.request({ method: 'GET', url: `/api/conversation/${uuid}/call`, as: admin.cookie });
    expect(info.json().call).toMatchObject({ status: 'completed', duration: 65 });
  });

  it('keeps busy, no-answer and failed, and reports an unreached CRM contact', async () => {
    const { type } = await buildCallSetup(t.ctx);
    for (const final of ['busy', 'no-answer', 'failed']) {
      const { uuid, sid, id } = await placeCall(type.id, true, `ct-${final}`);
      await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: 'ringing' }));
      await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: final, CallDuration: '0' }));
      expect((await callRow(t.ctx, uuid)).callStatus).toBe(final);
      expect(await reportedOutcomes(t.ctx, id)).toEqual(['notReached']);
    }
  });

  it('commits the final status, its minutes and the CRM write-back together: killed in between, the redelivered callback queues the note', async () => {
    const { type } = await buildCallSetup(t.ctx, { phases: 2 });
    const writeBacks = (id: number) => reportedOutcomes(t.ctx, id);
    const dying = runnerKilledOnEnqueue(t.ctx, ANALYSIS_JOB, 'killed while queueing the CRM write-back');

    for (const [final, outcome] of [['completed', 'unfinished'], ['no-answer', 'notReached']] as const) {
      const { uuid, sid, id } = await placeCall(type.id, true, `ct-killed-${final}`);
      await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: 'in-progress' }));
      const call = (await loadCallByUuid(t.ctx, uuid))!;
      const form = callForm(sid, { CallStatus: final, CallDuration: '42' });
      await expect(applyStatusCallback({ ...t.ctx, jobs: dying }, call, form)).rejects.toThrow('killed while queueing the CRM write-back');
      // Nothing of the call's end is stored without its write-back.
      expect(await callRow(t.ctx, uuid)).toMatchObject({ callStatus: 'in-progress', callDuration: null, callCostUsd: 0 });
      expect(await writeBacks(id)).toEqual([]);

      // Twilio delivers the callback again.
      expect((await postSigned(t, `/api/voice/calls/${uuid}/status`, form)).statusCode).toBe(200);
      expect(await callRow(t.ctx, uuid)).toMatchObject({ callStatus: final, callDuration: 42 });
      expect(await writeBacks(id)).toEqual([outcome]);
    }
  });

  it('voicemail: a machine gets the configured message (stored as the agent’s) and the call hangs up; the status stays voicemail', async () => {
    const { type } = await buildCallSetup(t.ctx, { initialMessage: 'Hi!', config: { voice: { voicemailMessage: 'Sorry we missed you. Please call us back at 555-0100.' } } });
    const { uuid, sid, id } = await placeCall(type.id, false);
    await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: 'in-progress' }));
    const amd = await postSigned(t, `/api/voice/calls/${uuid}/amd`, callForm(sid, { AnsweredBy: 'machine_end_beep', MachineDetectionDuration: '4200' }));
    expect(amd.statusCode).toBe(200);
    const placed = twilioFake.calls.find((c) => c.sid === sid)!;
    expect(placed.updates).toHaveLength(1);
    const twiml = placed.updates[0].Twiml;
    expect(twiml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><Response><Play>[^<]+<\/Play><Hangup\/><\/Response>$/);
    const played = await t.request({ method: 'GET', url: localPath(spokenParts(twiml).plays[0]) });
    expect(played.rawPayload.equals(azure.audioFor('Sorry we missed you. Please call us back at 555-0100.'))).toBe(true);

    expect(await messagesOfCall(t.ctx, id)).toEqual([{ role: 'AGENT', message: 'Sorry we missed you. Please call us back at 555-0100.' }]);
    await postSigned(t, `/api/voice/calls/${uuid}/status`, callForm(sid, { CallStatus: 'completed', CallDuration: '20' }));
    expect(await callRow(t.ctx, uuid)).toMatchObject({ callStatus: 'voicemail', answeredBy: 'machine_end_beep', callDuration: 20 });
  });

  it('voicemail without a configured message just hangs up; a person answering changes nothing', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const machine = await placeCall(type.id, true);
    await postSigned(t, `/api/voice/calls/${machine.uuid}/amd`, callForm(machine.sid, { AnsweredBy: 'machine_start' }));
    expect(twilioFake.calls.find((c) => c.sid === machine.sid)!.updates[0].Twiml).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
    expect(await callRow(t.ctx, machine.uuid)).toMatchObject({ callStatus: 'voicemail', answeredBy: 'machine_start', messagesCount: 0 });

    const person = await placeCall(type.id, true);
    await postSigned(t, `/api/voice/calls/${person.uuid}/status`, callForm(person.sid, { CallStatus: 'in-progress' }));
    await postSigned(t, `/api/voice/calls/${person.uuid}/amd`, callForm(person.sid, { AnsweredBy: 'human' }));
    expect(twilioFake.calls.find((c) => c.sid === person.sid)!.updates).toEqual([]);
    expect(await callRow(t.ctx, person.uuid)).toMatchObject({ callStatus: 'in-progress', answeredBy: 'human' });
  });

  it('recording: downloaded from Twilio with Basic auth into our storage, then streamed from our URL with Range to those who may see the conversation', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const { uuid, sid } = await placeCall(type.id, true);
    // An endpoint listening for call.recording_ready (the events are read from the outbox; nothing is sent).
    const endpoint = await t.request({ method: 'POST', url: '/api/admin/webhooks', as: admin.cookie, payload: { url: 'http://127.0.0.1:9/hook', events: ['call.recording_ready'] } });
    expect(endpoint.statusCode).toBe(201);
    const bytes = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(5000, 7)]);
    const recording = twilioFake.addRecording(ACCOUNT_SID, bytes);
    const res = await postSigned(t, `/api/voice/calls/${uuid}/recording`, {
      AccountSid: ACCOUNT_SID,
      CallSid: sid,
      RecordingSid: recording.sid,
      RecordingUrl: recording.url,
      RecordingStatus: 'completed',
      RecordingDuration: '125',
      RecordingChannels: '1',
      RecordingSource: 'OutboundAPI',
    });
    expect(res.statusCode).toBe(200);
    expect(await t.ctx.jobs.drain()).toBeGreaterThanOrEqual(1);
    const download = twilioFake.requests.find((r) => r.path.endsWith(`${recording.sid}.mp3`))!;
    expect(download).toMatchObject({ method: 'GET', authorized: true });

    const row = await callRow(t.ctx, uuid);
    expect(row).toMatchObject({ recordingUrl: `/api/conversation/${uuid}/recording`, recordingDuration: 125 });
    // Three started minutes of recording kept a month at 0.0005 per minute.
    expect(row.callCostUsd).toBeCloseTo(3 * 0.0005, 10);
    const readyEvents = async () =>
      ((await t.ctx.db.execute(sql`select data from webhook_events where type = 'call.recording_ready' and lane = ${`c:${row.id}`}`)) as unknown as { rows: { data: any }[] }).rows;
    const [ready] = await readyEvents();
    expect(ready.data).toMatchObject({ conversation: { uuid, recordingDuration: 125 }, recording: { url: `${PUBLIC_URL}/api/conversation/${uuid}/recording`, durationSeconds: 125 } });
    expect(ready.data.conversation.callCostUsd).toBeCloseTo(3 * 0.0005, 10);

    const whole = await t.request({ method: 'GET', url: row.recordingUrl!, as: admin.cookie });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/mpeg');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    const part = await t.request({ method: 'GET', url: row.recordingUrl!, as: admin.cookie, headers: { range: 'bytes=3-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 3-9/${bytes.length}`);
    expect(part.rawPayload.equals(bytes.subarray(3, 10))).toBe(true);
    expect((await t.request({ method: 'GET', url: row.recordingUrl!, as: admin.cookie, headers: { range: 'bytes=99999-' } })).statusCode).toBe(416);

    const stranger: TestUser = await buildUser(t.ctx);
    expect((await t.request({ method: 'GET', url: row.recordingUrl!, as: stranger.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: row.recordingUrl! })).statusCode).toBe(404);

    // Redelivered: nothing is fetched or booked again.
    await postSigned(t, `/api/voice/calls/${uuid}/recording`, { CallSid: sid, RecordingSid: recording.sid, RecordingUrl: recording.url, RecordingStatus: 'completed', RecordingDuration: '125' });
    await t.ctx.jobs.drain();
    expect(twilioFake.requests.filter((r) => r.path.endsWith(`${recording.sid}.mp3`))).toHaveLength(1);
    expect((await callRow(t.ctx, uuid)).callCostUsd).toBeCloseTo(3 * 0.0005, 10);
    expect(await readyEvents()).toHaveLength(1);
    expect((await t.request({ method: 'DELETE', url: `/api/admin/webhooks/${endpoint.json().id}`, as: admin.cookie })).statusCode).toBe(200);

    // Deleting the conversation deletes its recording file too.
    const storage = recordingStorage(t.ctx);
    expect(await storage.size(recordingStorageKey(uuid))).toBe(bytes.length);
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${row.id}`, as: admin.cookie })).statusCode).toBe(200);
    expect(await storage.size(recordingStorageKey(uuid))).toBeNull();
  });

  describe('a recording downloaded while its call is deleted leaves no file behind', () => {
    /** Places a call on its own account and starts the recording's download, held at Twilio until released. */
    async function downloadHeld(pageId: string) {
      const { type, account } = await buildCallSetup(t.ctx, { pageId });
      const { uuid, sid, id } = await placeCall(type.id, true);
      const recording = twilioFake.addRecording(ACCOUNT_SID, Buffer.from('ID3 deleted meanwhile'));
      const hold = twilioFake.holdNextRecording();
      const callback = { CallSid: sid, RecordingSid: recording.sid, RecordingUrl: recording.url, RecordingStatus: 'completed', RecordingDuration: '9' };
      expect((await postSigned(t, `/api/voice/calls/${uuid}/recording`, callback)).statusCode).toBe(200);
      const draining = t.ctx.jobs.drain();
      await hold.requested;
      const finish = async () => {
        hold.release();
        await draining;
      };
      return { uuid, id, account, finish };
    }

    /** Lets the held download finish: neither the call nor a recording file of it may be left. */
    async function finishedLeavesNothing(call: { uuid: string; finish(): Promise<unknown> }) {
      await call.finish();
      expect(await callRow(t.ctx, call.uuid)).toBeUndefined();
      expect(await recordingStorage(t.ctx).size(recordingStorageKey(call.uuid))).toBeNull();
    }

    it('the conversation deleted', async () => {
      const call = await downloadHeld('+15550004401');
      expect((await t.request({ method: 'DELETE', url: `/api/conversation/${call.id}`, as: admin.cookie })).statusCode).toBe(200);
      await finishedLeavesNothing(call);
    });

    it('its messaging account deleted (with its conversations)', async () => {
      const call = await downloadHeld('+15550004402');
      expect((await t.request({ method: 'DELETE', url: `/api/messaging-accounts/${call.account.id}`, as: admin.cookie })).statusCode).toBe(200);
      await finishedLeavesNothing(call);
    });

    it.skipIf(process.env.TEST_DB !== 'pg')('PostgreSQL: an account delete that listed the recordings before the download stored its URL', async () => {
      const call = await downloadHeld('+15550004403');
      const { rows } = (await t.ctx.db.execute(sql`select current_database() as name`)) as unknown as { rows: { name: string }[] };
      const deleting = new pg.Client({ connectionString: withDatabase(process.env.TEST_DATABASE_URL!, rows[0].name) });
      await deleting.connect();
      try {
        // As deleteMessagingAccount does: lock the account, list its recordings (none stored yet), then delete.
        await deleting.query('begin');
        await deleting.query('select id from messaging_accounts where id = $1 for update', [call.account.id]);
        const listed = await deleting.query('select id from conversations where messaging_account_id = $1 and recording_url is not null', [call.account.id]);
        expect(listed.rows).toEqual([]);
        let settled = false;
        const finished = call.finish().finally(() => (settled = true));
        // Until the job waits on the account's lock, or is done (PostgreSQL has no event for the wait).
        await untilLockWait(t.ctx.db, () => settled);
        await deleting.query('delete from messaging_accounts where id = $1', [call.account.id]);
        await deleting.query('commit');
        await finished;
      } finally {
        await deleting.end();
      }
      expect(await callRow(t.ctx, call.uuid)).toBeUndefined();
      expect(await recordingStorage(t.ctx).size(recordingStorageKey(call.uuid))).toBeNull();
    });
  });

  it('sends the account’s credentials only to TWILIO_API_URL and only for its own recordings', async () => {
    const { type } = await buildCallSetup(t.ctx);
    const { uuid, sid } = await placeCall(type.id, true);
    const foreign = twilioFake.addRecording(`AC${'2'.repeat(32)}`, Buffer.from('ID3 other'));
    await postSigned(t, `/api/voice/calls/${uuid}/recording`, { CallSid: sid, RecordingUrl: foreign.url, RecordingStatus: 'completed', RecordingDuration: '5' });
    await t.ctx.jobs.drain();
    expect(twilioFake.requests.filter((r) => r.path.includes(foreign.sid))).toEqual([]);
    expect((await callRow(t.ctx, uuid)).recordingUrl).toBeNull();
    expect((await t.request({ method: 'GET', url: `/api/conversation/${uuid}/recording`, as: admin.cookie })).statusCode).toBe(404);

    // A RecordingUrl naming another host: fetched from TWILIO_API_URL (the fake), never from that host.
    const own = twilioFake.addRecording(ACCOUNT_SID, Buffer.from('ID3 own'));
    const elsewhere = own.url.replace(twilioFake.url, 'https://recordings.example.net');
    await postSigned(t, `/api/voice/calls/${uuid}/recording`, { CallSid: sid, RecordingUrl: elsewhere, RecordingStatus: 'completed', RecordingDuration: '5' });
    await t.ctx.jobs.drain();
    expect(twilioFake.requests.filter((r) => r.path.endsWith(`${own.sid}.mp3`))).toMatchObject([{ authorized: true }]);
    expect((await callRow(t.ctx, uuid)).recordingUrl).toBe(`/api/conversation/${uuid}/recording`);
  });

  it('inbound: a call to our number is answered by the realtime agent of the account’s type; a retried webhook finds the same conversation', async () => {
    const { type, account } = await buildCallSetup(t.ctx, { pageId: '+15550003333' });
    await t.ctx.db.execute((await import('drizzle-orm')).sql`update messaging_accounts set conversation_type_id = ${type.id} where id = ${account.id}`);
    const form = { AccountSid: ACCOUNT_SID, CallSid: `CA${'9'.repeat(32)}`, From: '+14155559999', To: '+15550003333', CallStatus: 'ringing', Direction: 'inbound' };
    expect((await postSigned(t, '/api/twilio/voice', form, { signature: null })).statusCode).toBe(403);
    expect((await postSigned(t, '/api/twilio/voice', form, { token: 'wrong' })).statusCode).toBe(403);
    expect((await postSigned(t, '/api/twilio/voice', { ...form, To: '+15550009999' })).statusCode).toBe(403);

    const res = await postSigned(t, '/api/twilio/voice', form);
    expect(res.statusCode).toBe(200);
    const uuid = /value="([0-9a-f-]{36})"/.exec(res.body)![1];
    const binding = /media-stream\/([^"]+)"/.exec(res.body)![1];
    expect(verifyStreamBinding(t.ctx.config, binding)).toEqual({ conversationUuid: uuid, callSid: form.CallSid });
    expect(res.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Start>' +
        `<Recording recordingStatusCallback="${PUBLIC_URL}/api/voice/calls/${uuid}/recording" recordingStatusCallbackMethod="POST" recordingStatusCallbackEvent="completed"/>` +
        `</Start><Say language="en-US">${CALL_NOTICES}</Say><Connect><Stream url="ws://localhost:3000/api/voice/media-stream/${binding}">` +
        `<Parameter name="conversationUuid" value="${uuid}"/></Stream></Connect></Response>`,
    );
    const again = await postSigned(t, '/api/twilio/voice', form);
    // The same conversation (a retry); the binding's expiry may have moved on by a second.
    const withoutBinding = (body: string) => body.replace(/media-stream\/[^"]+"/, 'media-stream/…"');
    expect(withoutBinding(again.body)).toBe(withoutBinding(res.body));
    const row = await callRow(t.ctx, uuid);
    expect(row).toMatchObject({ callDirection: 'inbound', callSid: form.CallSid, callStatus: 'ringing', useRealtimeApi: true, conversationTypeId: type.id, messagingAccountId: account.id });
    const rows = await t.ctx.db.select().from(conversations).where(eq(conversations.callSid, form.CallSid));
    expect(rows).toHaveLength(1);

    await postSigned(t, '/api/twilio/voice/status', { ...form, CallStatus: 'completed', CallDuration: '42' });
    expect(await callRow(t.ctx, uuid)).toMatchObject({ callStatus: 'completed', callDuration: 42 });
    expect((await postSigned(t, '/api/twilio/voice/status', { ...form, CallStatus: 'completed' }, { token: 'wrong' })).statusCode).toBe(403);
  });

  it('inbound to a number without a conversation type: a short apology and hang up', async () => {
    await buildCallSetup(t.ctx, { pageId: '+15550004444' });
    const res = await postSigned(t, '/api/twilio/voice', { AccountSid: ACCOUNT_SID, CallSid: `CA${'8'.repeat(32)}`, From: '+14155558888', To: '+15550004444', CallStatus: 'ringing' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, this number is not taking calls right now. Goodbye.</Say><Hangup/></Response>');
  });

  describe('no reply is swallowed by a call (issue 18 item 4)', () => {
    const smsTo = (number: string) => twilioFake.messages.filter((m) => m.to === number);

    it('an SMS written during a realtime call is answered by SMS', async () => {
      const { type } = await buildCallSetup(t.ctx, { initialMessage: null });
      const { uuid, sid, id } = await placeCall(type.id, true);
      await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
      const before = smsTo(CALLEE).length;
      const res = await postTwilioSms(t, AUTH_TOKEN, { MessageSid: `SM${'a'.repeat(24)}${Date.now().toString().slice(-8)}`, AccountSid: ACCOUNT_SID, From: CALLEE, To: OUR_NUMBER, Body: 'Can you text me the price?' });
      expect(res.statusCode).toBe(200);
      await settle(t.ctx);
      expect((await outboxOfCall(t.ctx, id)).map((o) => o.status)).toEqual(['SENT']);
      expect(smsTo(CALLEE).length).toBe(before + 1);
    });

    it('a message after a call whose final status callback was lost (still in-progress) is sent, not dropped', async () => {
      const { type } = await buildCallSetup(t.ctx, { initialMessage: null });
      const { uuid, sid, id } = await placeCall(type.id, false);
      await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
      // Twilio's `completed` callback never arrives (it is not retried): the row still says in-progress.
      const res = await postTwilioSms(t, AUTH_TOKEN, { MessageSid: `SM${'b'.repeat(24)}${Date.now().toString().slice(-8)}`, AccountSid: ACCOUNT_SID, From: CALLEE, To: OUR_NUMBER, Body: 'Hello again' });
      expect(res.statusCode).toBe(200);
      await settle(t.ctx);
      expect((await callRow(t.ctx, uuid)).callStatus).toBe('in-progress');
      expect((await outboxOfCall(t.ctx, id)).map((o) => o.status)).toEqual(['SENT']);
      // And the stale status stops counting as a live call once the longest call is over.
      const row = await callRow(t.ctx, uuid);
      expect(isOnLiveCall(row)).toBe(true);
      expect(isOnLiveCall(row, row.createdAt.getTime() + LONGEST_CALL_MS + 1)).toBe(false);
    });

    it('a classic call whose inline turn throws leaves -3 for -1 with the error shown, not waiting forever', async () => {
      const { type } = await buildCallSetup(t.ctx, { initialMessage: null, errorPrompt: 'Sorry, something broke.' });
      const { uuid, sid, id } = await placeCall(type.id, false);
      await postSigned(t, `/api/voice/calls/${uuid}/twiml`, callForm(sid, { CallStatus: 'in-progress' }));
      // Another turn holds the conversation for longer than the Gather callback waits: the inline turn throws.
      let release!: () => void;
      const holding = withConversationLock(t.ctx, id, () => new Promise<void>((resolve) => (release = resolve)), { waitMs: 60_000 });
      try {
        const res = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, callForm(sid, { SpeechResult: 'Are you there?' }));
        expect(res.body).toContain('<Hangup/>');
      } finally {
        release();
        await holding;
      }
      expect((await callRow(t.ctx, uuid)).phase).toBe(-1);
      const [entry] = await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.conversationId, id));
      expect(JSON.parse(entry.errors)).toEqual([expect.objectContaining({ code: 'CALL_TURN_FAILED' })]);
    });
  });
});

describe('voice callbacks without Azure', () => {
  const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
  const t = useTestApp({ env: () => ({ TWILIO_API_URL: twilioFake.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }) });
  const admin = useUser(t, 'ADMIN');

  it('call notices: the type\'s own disclosure and recording notice texts are said, and false turns each off (both paths)', async () => {
    const custom = await buildCallSetup(t.ctx, { initialMessage: 'Hi.', config: { voice: { disclosure: 'I am Acme\'s AI assistant.', recordingNotice: false } } });
    const place = async (conversationTypeId: number, useRealtimeApi: boolean) => {
      const res = await t.request({ method: 'POST', url: `/api/admin/call/${CALLEE}`, payload: { conversationTypeId, useRealtimeApi }, as: admin.cookie });
      const uuid = res.json<{ uuid: string }>().uuid;
      return { uuid, sid: (await callRow(t.ctx, uuid)).callSid! };
    };
    const realtime = await place(custom.type.id, true);
    const answer = await postSigned(t, `/api/voice/calls/${realtime.uuid}/twiml`, callForm(realtime.sid, { CallStatus: 'in-progress' }));
    expect(spokenParts(answer.body).says).toEqual(["I am Acme's AI assistant."]);
    const off = await buildCallSetup(t.ctx, { initialMessage: 'Hi.', config: { voice: { disclosure: false, recordingNotice: false } } });
    const classic = await place(off.type.id, false);
    const silent = await postSigned(t, `/api/voice/calls/${classic.uuid}/twiml`, callForm(classic.sid, { CallStatus: 'in-progress' }));
    expect(silent.body).not.toContain('AI assistant');
    expect(silent.body.indexOf('<Gather')).toBe(silent.body.indexOf('<Response>') + '<Response>'.length);
  });

  it('speaks with Twilio’s <Say> in the voice’s language', async () => {
    const { type } = await buildCallSetup(t.ctx, { initialMessage: 'Hallo, hier ist Sam.', config: { voice: { name: 'de-DE-KatjaNeural' } } });
    const res = await t.request({ method: 'POST', url: `/api/admin/call/${CALLEE}`, payload: { conversationTypeId: type.id, useRealtimeApi: false }, as: admin.cookie });
    const uuid = res.json<{ uuid: string }>().uuid;
    const row = await callRow(t.ctx, uuid);
    const answer = await postSigned(t, `/api/voice/calls/${uuid}/twiml`, { CallSid: row.callSid!, CallStatus: 'in-progress' });
    expect(answer.body).toContain('language="de-DE"><Say language="de-DE">Hallo, hier ist Sam.</Say></Gather>');
    expect(answer.body).toContain(`<Say language="de-DE">${CALL_NOTICES}</Say><Gather`);
    const turn = await postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, { CallSid: row.callSid!, SpeechResult: 'Ja bitte' });
    const { says } = spokenParts(turn.body);
    expect(says).toHaveLength(1);
    expect(says[0]).not.toContain('[Demo agent');
    expect((await callRow(t.ctx, uuid)).ttsCharacters).toBe(0);
  });
});
