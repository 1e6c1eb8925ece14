import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookings, conversations } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildConversation, buildConversationType, buildMessagingAccount, buildProspect, grantAccount } from '../../test/conversation-factories.ts';
import { callPrices } from '../../voice/call-costs.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const day = Date.UTC(2025, 5, 1, 9);
let typeId = 0;
let ttsPerChar = 0;

/**
 * W web chat: $0.02 of LLM.  C a call on account 1 (granted): $0.50 in all, $0.40 of it the call, 10 000 TTS
 * characters; booked.  M a message conversation on account 2: $0.06 of LLM, booked.  O outside the range.
 */
beforeAll(async () => {
  ttsPerChar = callPrices(t.ctx.config).tts.perMillionCharacters / 1_000_000;
  typeId = (await buildConversationType(t.ctx, { phases: 1 })).id;
  const account1 = await buildMessagingAccount(t.ctx);
  const account2 = await buildMessagingAccount(t.ctx);
  await grantAccount(t.ctx, normal.id, account1.id);
  const seed = async (at: number, set: Partial<typeof conversations.$inferInsert>, accountId?: number, booked = false) => {
    const prospectId = accountId === undefined ? null : (await buildProspect(t.ctx, accountId)).id;
    const c = await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId, createdAt: new Date(day + at * 1000) });
    await t.ctx.db.update(conversations).set(set).where(eq(conversations.id, c.id));
    if (booked) {
      await t.ctx.db.insert(bookings).values({ conversationId: c.id, provider: 'demo', externalId: `cost-${c.id}`, start: new Date(day + 86_400_000), end: new Date(day + 88_200_000), timeZone: 'UTC' });
    }
    return c.id;
  };
  await seed(0, { costUsd: 0.02 });
  await seed(10, { costUsd: 0.5, callCostUsd: 0.4, ttsCharacters: 10_000, callSid: 'CA-cost-1', callStatus: 'completed', callDirection: 'outbound', answeredBy: 'human', callDuration: 90, responseLatenciesMs: [400, 800, 1200] }, account1.id, true);
  await seed(20, { costUsd: 0.06 }, account2.id, true);
  await seed(-86_400, { costUsd: 9 });
  await seed(30, { callSid: 'CA-vm-1', callStatus: 'completed', callDirection: 'outbound', answeredBy: 'machine_end_beep', callDuration: 30, responseLatenciesMs: [2000] }, account2.id);
  await seed(40, { callSid: 'CA-na-1', callStatus: 'no-answer', callDirection: 'outbound' }, account2.id);
  await seed(50, { callSid: 'CA-in-1', callStatus: 'completed', callDirection: 'inbound', callDuration: 60, responseLatenciesMs: [600] }, account1.id);
});

const get = (as: string | undefined, extra = '') =>
  t.request({ method: 'GET', url: `/api/admin/analytics/cost?conversationType=${typeId}&from=2025-06-01&to=2025-06-01${extra}`, as });

describe('analytics cost', () => {
  it('splits LLM, voice and telephony per conversation, per booked meeting and per channel', async () => {
    const res = await get(admin.cookie);
    expect(res.statusCode).toBe(200);
    const voice = 10_000 * ttsPerChar;
    const body = res.json();
    expect(body.total).toMatchObject({ channel: 'ALL', conversations: 6, booked: 2 });
    expect(body.total.llmUsd).toBeCloseTo(0.18, 6);
    expect(body.total.voiceUsd).toBeCloseTo(voice, 6);
    expect(body.total.telephonyUsd).toBeCloseTo(0.4 - voice, 6);
    expect(body.total.totalUsd).toBeCloseTo(0.58, 6);
    expect(body.total.perConversationUsd).toBeCloseTo(0.58 / 6, 6);
    expect(body.total.perBookedUsd).toBeCloseTo(0.29, 6);
    expect(body.byChannel.map((r: { channel: string; conversations: number; booked: number; totalUsd: number; perBookedUsd: number | null }) => [r.channel, r.conversations, r.booked, r.totalUsd, r.perBookedUsd])).toEqual([
      ['CALL', 4, 1, 0.5, 0.5],
      ['INSTAGRAM', 1, 1, 0.06, 0.06],
      ['WEB', 1, 0, 0.02, null],
    ]);
    const calls = await get(admin.cookie, '&channel=call');
    expect(calls.json().total).toMatchObject({ conversations: 4, totalUsd: 0.5 });
  });

  it('a NORMAL user sees only the granted accounts; 400/401/404', async () => {
    const res = await get(normal.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json().total).toMatchObject({ conversations: 2, booked: 1, totalUsd: 0.5, perConversationUsd: 0.25, perBookedUsd: 0.5 });
    expect(res.json().byChannel.map((r: { channel: string }) => r.channel)).toEqual(['CALL']);
    expect((await get(undefined)).statusCode).toBe(401);
    expect((await get(admin.cookie, '&channel=pigeon')).statusCode).toBe(400);
    const unknown = await t.request({ method: 'GET', url: '/api/admin/analytics/cost?conversationType=999999&from=2025-06-01&to=2025-06-02', as: admin.cookie });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('analytics voice', () => {
  it('counts calls, pick-ups, voicemail and the average duration; a NORMAL user only the granted accounts', async () => {
    const url = `/api/admin/analytics/voice?conversationType=${typeId}&from=2025-06-01&to=2025-06-01`;
    const res = await t.request({ method: 'GET', url, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    // C human 90 s, V voicemail 30 s, N no answer, I inbound 60 s (connected, no verdict).
    // Latencies: C 400/800/1200, V 2000, I 600 ms → p50 800, p90 1200 + 0.6 × 800 = 1680, over 3 calls.
    expect(res.json()).toEqual({
      calls: 4, inbound: 1, outbound: 3, pickedUp: 2, voicemail: 1, pickUpRate: 0.5, voicemailRate: 0.25, averageDurationSeconds: 60,
      responseLatencyMs: { p50: 800, p90: 1680 }, latencyCalls: 3,
    });
    const mine = await t.request({ method: 'GET', url, as: normal.cookie });
    // C and I only: 400, 600, 800, 1200 → p50 700, p90 800 + 0.7 × 400 = 1080.
    expect(mine.json()).toEqual({
      calls: 2, inbound: 1, outbound: 1, pickedUp: 2, voicemail: 0, pickUpRate: 1, voicemailRate: 0, averageDurationSeconds: 75,
      responseLatencyMs: { p50: 700, p90: 1080 }, latencyCalls: 2,
    });
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
  });
});
