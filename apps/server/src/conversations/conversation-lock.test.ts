import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentMessagesOf, buildPlaybook, buildProspectConversation } from '../test/agent-factories.ts';
import { buildTestApp, type TestApp } from '../test/build-test-app.ts';
import { buildAdmin, type TestUser } from '../test/factories.ts';
import { startAzureTtsFake, type AzureTtsFake } from '../test/fakes/azure-tts-fake.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { startTwilioFake, type TwilioFake } from '../test/fakes/twilio-fake.ts';
import { PUBLIC_URL } from '../test/channel-factories.ts';
import {
  ACCOUNT_SID,
  AUTH_TOKEN,
  AZURE_KEY,
  buildCallSetup,
  CALLEE,
  callRow,
  freshStorageDir,
  messagesOfCall,
  OUR_NUMBER,
  postSigned,
} from '../voice/voice-test-kit.ts';
import { receiveProspectMessage } from '../agent/agent.service.ts';
import { FOLLOW_UP_JOB } from '../agent/follow-up.ts';
import { ConversationBusyError, withConversationLock } from './conversation-lock.ts';

/**
 * The per-conversation lock under load (docs/agent.md "Concurrency"). On PostgreSQL the test database's pool
 * has 5 connections (test/test-database.ts): a lock that pins a pooled connection for the whole turn while
 * the turn needs a second one hangs forever as soon as 5 turns run at once.
 */
const POOL_SIZE = 5;
const fake = new OpenAiFake();
let t: TestApp;
let twilioFake: TwilioFake;
let azure: AzureTtsFake;
let admin: TestUser;

beforeAll(async () => {
  await fake.start();
  twilioFake = await startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } });
  azure = await startAzureTtsFake({ key: AZURE_KEY });
  t = await buildTestApp(
    fake.env({ TWILIO_API_URL: twilioFake.url, AZURE_TTS_KEY: AZURE_KEY, AZURE_TTS_URL: azure.endpoint, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }),
  );
  admin = await buildAdmin(t.ctx);
});
afterAll(async () => {
  await t.close();
  await fake.close();
  await twilioFake.close();
  await azure.close();
});

const callForm = (sid: string, extra: Record<string, string> = {}) => ({
  AccountSid: ACCOUNT_SID,
  CallSid: sid,
  From: OUR_NUMBER,
  To: CALLEE,
  Direction: 'outbound-api',
  ApiVersion: '2010-04-01',
  CallStatus: 'in-progress',
  ...extra,
});

describe('conversation lock', () => {
  it('lets three times the pool size of turns run at once from every entry point, and all of them finish', async () => {
    const perEntry = POOL_SIZE;
    // Runner jobs: a prospect message each, the turn queued.
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 3 } } });
    const chats: number[] = [];
    for (let i = 0; i < perEntry; i++) chats.push((await buildProspectConversation(t.ctx, type.id)).conversation.id);
    // The Follow-up button: conversations the agent has answered once.
    const answered: { id: number; uuid: string }[] = [];
    for (let i = 0; i < perEntry; i++) {
      const { conversation } = await buildProspectConversation(t.ctx, type.id);
      await receiveProspectMessage(t.ctx, conversation.id, 'tell me more');
      answered.push({ id: conversation.id, uuid: conversation.uuid });
    }
    await t.ctx.jobs.drain();
    // Classic voice: calls answered, waiting for the caller's speech (<Gather>).
    const calls: { uuid: string; sid: string; id: number }[] = [];
    for (let i = 0; i < perEntry; i++) {
      const { type: callType } = await buildCallSetup(t.ctx, { phases: 3, pageId: `+1555000${2000 + i}` });
      const res = await t.request({ method: 'POST', url: `/api/admin/call/${CALLEE}`, payload: { conversationTypeId: callType.id, useRealtimeApi: false }, as: admin.cookie });
      expect(res.statusCode).toBe(200);
      const uuid = res.json<{ uuid: string }>().uuid;
      const row = await callRow(t.ctx, uuid);
      expect((await postSigned(t, `/api/voice/calls/${uuid}/twiml`, { ...callForm(row.callSid!), From: `+1555000${2000 + i}` })).statusCode).toBe(200);
      calls.push({ uuid, sid: row.callSid!, id: row.id });
    }
    for (const id of chats) await receiveProspectMessage(t.ctx, id, 'hello, what do you sell?');
    // Every turn waits on its model long enough for all of them to be inside their lock together.
    fake.latencyMs = 150;

    const [ran, followUps, gathers] = await Promise.all([
      t.ctx.jobs.drain(),
      Promise.all(answered.map(({ uuid }) => t.request({ method: 'POST', url: `/api/conversation/${uuid}/follow-up`, as: admin.cookie }))),
      Promise.all(
        calls.map(({ uuid, sid }, i) =>
          postSigned(t, `/api/voice/calls/${uuid}/gather?silences=0`, { ...callForm(sid), From: `+1555000${2000 + i}`, SpeechResult: 'Yes, twenty widgets.', Confidence: '0.9' }),
        ),
      ),
    ]);
    fake.latencyMs = 0;

    expect(ran).toBeGreaterThanOrEqual(perEntry);
    expect(followUps.map((r) => r.statusCode)).toEqual(answered.map(() => 200));
    expect(gathers.map((r) => r.statusCode)).toEqual(calls.map(() => 200));
    for (const id of chats) expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply']);
    for (const { id } of answered) expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake follow-up');
    for (const { id } of calls) expect((await messagesOfCall(t.ctx, id)).map((m) => m.role).slice(-2)).toEqual(['PROSPECT', 'AGENT']);
    // Every lease was given back.
    if (t.ctx.database.driver === 'pg') {
      const left = await t.ctx.db.execute(sql`select count(*)::int as n from conversation_locks`);
      expect(Number((left as unknown as { rows: { n: number }[] }).rows[0].n)).toBe(0);
    }
  });

  it('makes a second holder of the same conversation wait, and a busy follow-up job tries again without burning an attempt', async () => {
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 3 } } });
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = withConversationLock(t.ctx, conversation.id, async () => {
      entered();
      await held;
    });
    await inside;
    await expect(withConversationLock(t.ctx, conversation.id, async () => 'second', { waitMs: 0 })).rejects.toBeInstanceOf(ConversationBusyError);

    const id = await t.ctx.jobs.enqueue(FOLLOW_UP_JOB, { conversationId: conversation.id }, { maxAttempts: 2 });
    // The job meets the busy conversation twice (it waits up to 2 s each time): no attempt is counted, no error stored.
    await t.ctx.jobs.drain();
    await t.ctx.db.execute(sql`update jobs set run_at = now() where id = ${id}`);
    await t.ctx.jobs.drain();
    const result = await t.ctx.db.execute(sql`select status, attempts, last_error from jobs where id = ${id}`);
    expect((result as unknown as { rows: unknown[] }).rows[0]).toEqual({ status: 'pending', attempts: 0, last_error: null });

    release();
    await holder;
    await expect(withConversationLock(t.ctx, conversation.id, async () => 'free now', { waitMs: 0 })).resolves.toBe('free now');
  });
});
