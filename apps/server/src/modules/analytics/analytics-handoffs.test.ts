import { beforeAll, describe, expect, it } from 'vitest';
import { followUps, handoffs, messages } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildConversation, buildConversationType, buildMessagingAccount, buildProspect, grantAccount } from '../../test/conversation-factories.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const day = Date.UTC(2025, 6, 1, 9);
const s = (seconds: number) => new Date(day + seconds * 1000);
let typeId = 0;

/**
 * Hand-offs (times in seconds after 09:00 on 2025-07-01), answered by the trigger when a person's message is stored:
 *   A account 1 (granted): HUMAN_REQUESTED at 0, a person writes at 120 → 120 s
 *   B account 2: NOT_IN_KNOWLEDGE at 10, a person at 310 → 300 s; then GUARD_FAILED at 1000, unanswered
 *   C account 2: HUMAN_REQUESTED at 20, a person at 80 → 60 s
 *   D account 1: no hand-off; a person writes at 50 on the unpaused conversation → TAKEN_OVER, answered at once (0 s)
 *   W web chat, nothing.   O the day before: HUMAN_REQUESTED (outside the range).
 * Follow-ups: A at 200 (prospect writes at 260: back), 400 (no: another follow-up came first), 500 (prospect at
 * 600: back); B at 200 (no reply); C at 100 (the prospect's message at 90 came before it: no).
 */
beforeAll(async () => {
  typeId = (await buildConversationType(t.ctx, { phases: 1 })).id;
  const account1 = await buildMessagingAccount(t.ctx);
  const account2 = await buildMessagingAccount(t.ctx);
  await grantAccount(t.ctx, normal.id, account1.id);
  const seed = async (at: number, accountId?: number) => {
    const prospectId = accountId === undefined ? null : (await buildProspect(t.ctx, accountId)).id;
    return (await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId, createdAt: s(at) })).id;
  };
  const handOff = (conversationId: number, reason: string, at: number) => t.ctx.db.insert(handoffs).values({ conversationId, reason, handedAt: s(at) });
  const person = (conversationId: number, at: number) =>
    t.ctx.db.insert(messages).values({ conversationId, role: 'AGENT', message: 'A person here', dateSent: s(at), writtenByHuman: true });
  const prospect = (conversationId: number, at: number) => t.ctx.db.insert(messages).values({ conversationId, role: 'PROSPECT', message: 'back', dateSent: s(at) });
  const followUp = (conversationId: number, at: number) => t.ctx.db.insert(followUps).values({ conversationId, sentAt: s(at) });

  const a = await seed(0, account1.id);
  const b = await seed(1, account2.id);
  const c = await seed(2, account2.id);
  const d = await seed(3, account1.id);
  await seed(4);
  const o = await seed(-86_400, account1.id);
  await handOff(a, 'HUMAN_REQUESTED', 0);
  await person(a, 120);
  await handOff(b, 'NOT_IN_KNOWLEDGE', 10);
  await person(b, 310);
  await handOff(b, 'GUARD_FAILED', 1000);
  await handOff(c, 'HUMAN_REQUESTED', 20);
  await person(c, 80);
  await person(d, 50);
  await handOff(o, 'HUMAN_REQUESTED', -86_000);

  await followUp(a, 200);
  await prospect(a, 260);
  await followUp(a, 400);
  await followUp(a, 500);
  await prospect(a, 600);
  await followUp(b, 200);
  await prospect(c, 90);
  await followUp(c, 100);
});

const get = (what: string, as?: string, extra = '') =>
  t.request({ method: 'GET', url: `/api/admin/analytics/${what}?conversationType=${typeId}&from=2025-07-01&to=2025-07-01${extra}`, as });
const p = (p50: number | null, p90: number | null) => ({ p50, p90 });

describe('analytics hand-offs', () => {
  it('counts how often, why, and how long until a person answered (p50/p90)', async () => {
    const res = await get('handoffs', admin.cookie);
    expect(res.statusCode).toBe(200);
    // Answer times 0, 60, 120, 300 s: p50 90, p90 120 + 0.7 × 180 = 246.
    expect(res.json()).toEqual({
      conversations: 5,
      handedOff: 4,
      handedOffShare: 0.8,
      total: { reason: 'ALL', handoffs: 5, answered: 4, answerSeconds: p(90, 246) },
      byReason: [
        { reason: 'HUMAN_REQUESTED', handoffs: 2, answered: 2, answerSeconds: p(90, 114) },
        { reason: 'GUARD_FAILED', handoffs: 1, answered: 0, answerSeconds: p(null, null) },
        { reason: 'NOT_IN_KNOWLEDGE', handoffs: 1, answered: 1, answerSeconds: p(300, 300) },
        { reason: 'TAKEN_OVER', handoffs: 1, answered: 1, answerSeconds: p(0, 0) },
      ],
    });
    const messaging = await get('handoffs', admin.cookie, '&channel=web');
    expect(messaging.json()).toMatchObject({ conversations: 1, handedOff: 0, total: { handoffs: 0 }, byReason: [] });
  });

  it('a NORMAL user sees only the granted accounts; 401 anonymous, 400 bad filters', async () => {
    const res = await get('handoffs', normal.cookie);
    expect(res.json()).toEqual({
      conversations: 2,
      handedOff: 2,
      handedOffShare: 1,
      total: { reason: 'ALL', handoffs: 2, answered: 2, answerSeconds: p(60, 108) },
      byReason: [
        { reason: 'HUMAN_REQUESTED', handoffs: 1, answered: 1, answerSeconds: p(120, 120) },
        { reason: 'TAKEN_OVER', handoffs: 1, answered: 1, answerSeconds: p(0, 0) },
      ],
    });
    expect((await get('handoffs')).statusCode).toBe(401);
    expect((await get('handoffs', admin.cookie, '&channel=pigeon')).statusCode).toBe(400);
  });
});

describe('analytics follow-ups', () => {
  it('counts the follow-ups sent and the share that brought the prospect back, in all and by rank', async () => {
    const res = await get('follow-ups', admin.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      followedUp: 3,
      total: { number: null, sent: 5, broughtBack: 2, broughtBackShare: 0.4 },
      byNumber: [
        { number: 1, sent: 3, broughtBack: 1, broughtBackShare: 1 / 3 },
        { number: 2, sent: 1, broughtBack: 0, broughtBackShare: 0 },
        { number: 3, sent: 1, broughtBack: 1, broughtBackShare: 1 },
      ],
    });
  });

  it('a NORMAL user sees only the granted accounts; 401 anonymous', async () => {
    const res = await get('follow-ups', normal.cookie);
    expect(res.json()).toEqual({
      followedUp: 1,
      total: { number: null, sent: 3, broughtBack: 2, broughtBackShare: 2 / 3 },
      byNumber: [
        { number: 1, sent: 1, broughtBack: 1, broughtBackShare: 1 },
        { number: 2, sent: 1, broughtBack: 0, broughtBackShare: 0 },
        { number: 3, sent: 1, broughtBack: 1, broughtBackShare: 1 },
      ],
    });
    expect((await get('follow-ups')).statusCode).toBe(401);
  });
});
