import { readFileSync } from 'node:fs';
import { eq, inArray, sql } from 'drizzle-orm';
import { analyticsQuery } from '@sales-agent/shared/schemas/analytics';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookings, conversationAnalyses, conversations } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import {
  buildConversation,
  buildConversationType,
  buildMessagingAccount,
  buildProspect,
  grantAccount,
} from '../../test/conversation-factories.ts';
import { speed as speedFigures } from './analytics.service.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const day = Date.UTC(2025, 2, 10);
/** Seconds after the seeded day's start. */
const s = (seconds: number) => new Date(day + seconds * 1000);
const RANGE = 'from=2025-03-10T00:00:00Z&to=2025-03-11T00:00:00Z';

let typeId = 0;
let account1Id = 0;
const ids: Record<string, number> = {};

/**
 * The same conversations (all of March 2025) read four ways: the whole month from the analytics_monthly rollup,
 * a range without a whole month from the rows, a wider range mixing both, and one whose only whole month
 * (February, empty) is from the rollup and March from the rows.
 */
const MARCH = {
  rollup: 'from=2025-03-01&to=2025-03-31',
  rows: 'from=2025-03-01&to=2025-03-31T23:59:59Z',
  mixed: 'from=2025-02-20&to=2025-04-05',
  edges: 'from=2025-02-01&to=2025-03-31T12:00:00Z',
};

/**
 * Seeded conversations of a 3-phase type (figures known exactly):
 *   A web chat, no message yet, phase 0           B account 1, phases 0→1→2, then set back to 1 by hand; replied by the AI in 10 s
 *   C account 2, ended (3), booked, a person replied in 120 s   D web chat, 0 → -2, prospect message unanswered
 *   F ignored (9999) from the start                G account 1, phase 1, deleted in a test
 *   I web chat, an outbound AGENT message first, then prospect, AI reply 30 s later
 *   E outside the range, X of another type.
 */
beforeAll(async () => {
  const type = await buildConversationType(t.ctx, { phases: 3 });
  const other = await buildConversationType(t.ctx, { phases: 1 });
  typeId = type.id;
  const account1 = await buildMessagingAccount(t.ctx);
  const account2 = await buildMessagingAccount(t.ctx);
  await grantAccount(t.ctx, normal.id, account1.id);
  account1Id = account1.id;
  const conversationTypeId = type.id;
  const p = async (accountId: number) => (await buildProspect(t.ctx, accountId)).id;
  ids.A = (await buildConversation(t.ctx, { conversationTypeId, createdAt: s(60) })).id;
  ids.B = (
    await buildConversation(t.ctx, {
      conversationTypeId,
      prospectId: await p(account1.id),
      createdAt: s(100),
      messages: [
        { role: 'PROSPECT', message: 'hi', dateSent: s(100) },
        { role: 'AGENT', message: 'hello', dateSent: s(110) },
        { role: 'PROSPECT', message: 'more', dateSent: s(200) },
        { role: 'AGENT', message: 'sure', dateSent: s(205) },
      ],
    })
  ).id;
  for (const phase of [1, 2]) await t.ctx.db.update(conversations).set({ phase }).where(eq(conversations.id, ids.B));
  ids.C = (
    await buildConversation(t.ctx, {
      conversationTypeId,
      prospectId: await p(account2.id),
      phase: 3,
      createdAt: s(300),
      messages: [
        { role: 'PROSPECT', message: 'hi', dateSent: s(300) },
        { role: 'SYSTEM', message: 'note', dateSent: s(310) },
      ],
    })
  ).id;
  await t.ctx.db.insert((await import('../../db/schema/index.ts')).messages).values({
    conversationId: ids.C, role: 'AGENT', message: 'a person here', dateSent: s(420), writtenByHuman: true,
  });
  await t.ctx.db.insert(bookings).values({
    conversationId: ids.C, provider: 'demo', externalId: 'b-1', start: s(90_000), end: s(91_800), timeZone: 'UTC',
  });
  ids.D = (
    await buildConversation(t.ctx, { conversationTypeId, createdAt: s(400), messages: [{ role: 'PROSPECT', message: '?', dateSent: s(400) }] })
  ).id;
  await t.ctx.db.update(conversations).set({ phase: -2 }).where(eq(conversations.id, ids.D));
  ids.F = (await buildConversation(t.ctx, { conversationTypeId, phase: 9999, createdAt: s(500) })).id;
  ids.G = (await buildConversation(t.ctx, { conversationTypeId, prospectId: await p(account1.id), phase: 1, createdAt: s(600) })).id;
  ids.I = (
    await buildConversation(t.ctx, {
      conversationTypeId,
      createdAt: s(700),
      messages: [
        { role: 'AGENT', message: 'we called you', dateSent: s(700) },
        { role: 'PROSPECT', message: 'who is it', dateSent: s(760) },
        { role: 'AGENT', message: 'the shop', dateSent: s(790) },
      ],
    })
  ).id;
  ids.E = (await buildConversation(t.ctx, { conversationTypeId, phase: 3, createdAt: s(-10) })).id;
  ids.X = (await buildConversation(t.ctx, { conversationTypeId: other.id, phase: 1, createdAt: s(800) })).id;
  // By hand, B goes back to phase 1: it still reached phase 2.
  const res = await t.request({ method: 'PATCH', url: `/api/conversation/${ids.B}`, as: admin.cookie, payload: { phase: 1 } });
  expect(res.statusCode).toBe(200);
});

const funnel = (as: string, extra = '') =>
  t.request({ method: 'GET', url: `/api/admin/analytics/funnel?conversationType=${typeId}&${RANGE}${extra}`, as });
const speed = (as: string, extra = '') =>
  t.request({ method: 'GET', url: `/api/admin/analytics/speed?conversationType=${typeId}&${RANGE}${extra}`, as });
const figures = async (what: 'funnel' | 'speed', as: string, range: string, extra = '') => {
  const res = await t.request({ method: 'GET', url: `/api/admin/analytics/${what}?conversationType=${typeId}&${range}${extra}`, as });
  expect(res.statusCode).toBe(200);
  return res.json();
};

/** March's funnel, for each filter and viewer, is the same from the rollup, the rows and both; answers the ADMIN's unfiltered one. */
async function expectMonthPathsAgree() {
  for (const as of [admin.cookie, normal.cookie]) {
    for (const extra of ['', '&channel=web', '&channel=INSTAGRAM', '&channel=CALL', `&messagingAccount=${account1Id}`, '&version=draft', '&version=1']) {
      const rows = await figures('funnel', as, MARCH.rows, extra);
      expect(await figures('funnel', as, MARCH.rollup, extra), extra).toEqual(rows);
      expect(await figures('funnel', as, MARCH.mixed, extra), extra).toEqual(rows);
      expect(await figures('funnel', as, MARCH.edges, extra), extra).toEqual(rows);
    }
  }
  // The rollup holds exactly what a recount of the conversations gives (no drift on any write path).
  const recount = sql`select conversation_type_id, date_trunc('month', created_at at time zone 'UTC')::date::text as month,
      coalesce(messaging_account_id, 0) as account, call_sid is not null as is_call, coalesce(type_version, 0) as version,
      coalesce(max_phase, -1) as max_phase, first_prospect_message_at is not null as with_prospect,
      analytics_reply_bucket(extract(epoch from (first_reply_at - first_prospect_message_at))) as bucket, first_reply_by_human as by_human
    from conversations`;
  const counted = new Map<string, number>();
  const add = (key: string, n: number) => n !== 0 && counted.set(key, (counted.get(key) ?? 0) + n);
  for (const r of ((await t.ctx.db.execute(recount)) as unknown as { rows: Record<string, unknown>[] }).rows) {
    const cell = [r.conversation_type_id, r.month, r.account, r.is_call, r.version].join('/');
    add(`${cell} conversations`, 1);
    add(`${cell} phase ${r.max_phase}`, 1);
    if (r.with_prospect) add(`${cell} with prospect`, 1);
    if (r.bucket !== null) add(`${cell} ${r.by_human ? 'team' : 'agent'} bucket ${r.bucket}`, 1);
  }
  const kept = new Map<string, number>();
  const keep = (key: string, n: unknown) => Number(n ?? 0) !== 0 && kept.set(key, (kept.get(key) ?? 0) + Number(n));
  const rollup = sql`select conversation_type_id, month::text as month, messaging_account_id as account, is_call, type_version as version,
      conversations, max_phase_counts, with_prospect_message, agent_reply_buckets, team_reply_buckets from analytics_monthly`;
  for (const r of ((await t.ctx.db.execute(rollup)) as unknown as { rows: Record<string, unknown>[] }).rows) {
    const cell = [r.conversation_type_id, r.month, r.account, r.is_call, r.version].join('/');
    keep(`${cell} conversations`, r.conversations);
    (r.max_phase_counts as number[]).forEach((n, i) => keep(`${cell} phase ${i - 1}`, n));
    keep(`${cell} with prospect`, r.with_prospect_message);
    (r.agent_reply_buckets as number[]).forEach((n, i) => keep(`${cell} agent bucket ${i}`, n));
    (r.team_reply_buckets as number[]).forEach((n, i) => keep(`${cell} team bucket ${i}`, n));
  }
  expect(Object.fromEntries(kept)).toEqual(Object.fromEntries(counted));
  return figures('funnel', admin.cookie, MARCH.rollup);
}

const steps = (reached: number[]) => reached.map((r, phase) => ({ phase, label: `Phase ${phase}`, reached: r }));

describe('analytics funnel', () => {
  it('counts started, reached each phase (or beyond), ended and booked', async () => {
    const res = await funnel(admin.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ started: 7, steps: steps([6, 3, 2]), ended: 1, booked: 1 });
  });

  it('filters by channel and by messaging account, and a day as `to` includes that day', async () => {
    const web = await funnel(admin.cookie, '&channel=web');
    expect(web.json()).toEqual({ started: 4, steps: steps([3, 0, 0]), ended: 0, booked: 0 });
    const insta = await funnel(admin.cookie, '&channel=INSTAGRAM');
    expect(insta.json()).toMatchObject({ started: 3, ended: 1, booked: 1 });
    const days = await t.request({
      method: 'GET', url: `/api/admin/analytics/funnel?conversationType=${typeId}&from=2025-03-10&to=2025-03-10`, as: admin.cookie,
    });
    expect(days.json()).toMatchObject({ started: 7 });
  });

  it('reads whole months from the rollup, with every filter, as the rows give them', async () => {
    // E (phase 3, the evening before) is in March too.
    expect(await expectMonthPathsAgree()).toEqual({ started: 8, steps: steps([7, 4, 3]), ended: 2, booked: 1 });
  });

  it('a NORMAL user sees only the granted accounts', async () => {
    const res = await funnel(normal.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ started: 2, steps: steps([2, 2, 1]), ended: 0, booked: 0 });
  });

  it('lists the conversations of a step', async () => {
    const res = await t.request({
      method: 'GET', url: `/api/admin/analytics/funnel/conversations?conversationType=${typeId}&${RANGE}&step=2`, as: admin.cookie,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().conversations.map((c: { id: number }) => c.id)).toEqual([ids.C, ids.B]);
    const booked = await t.request({
      method: 'GET', url: `/api/admin/analytics/funnel/conversations?conversationType=${typeId}&${RANGE}&step=booked`, as: normal.cookie,
    });
    expect(booked.json()).toEqual({ conversations: [] });
  });

  it('answers 400 for bad filters and the version filter, 401 anonymous, 404 for an unknown type', async () => {
    expect((await t.request({ method: 'GET', url: `/api/admin/analytics/funnel?conversationType=${typeId}` })).statusCode).toBe(401);
    const missing = await t.request({ method: 'GET', url: `/api/admin/analytics/funnel?conversationType=${typeId}&from=2025-03-10`, as: admin.cookie });
    expect(missing.statusCode).toBe(400);
    const backwards = await t.request({
      method: 'GET', url: `/api/admin/analytics/speed?conversationType=${typeId}&from=2025-03-11&to=2025-03-09`, as: admin.cookie,
    });
    expect(backwards.json()).toMatchObject({ error: 'from must be before to' });
    expect((await funnel(admin.cookie, '&channel=pigeon')).statusCode).toBe(400);
    const version = await funnel(admin.cookie, '&version=v2');
    expect(version.statusCode).toBe(400);
    expect(version.json().error).toMatch(/version must be/);
    const unknown = await t.request({ method: 'GET', url: `/api/admin/analytics/funnel?conversationType=999999&${RANGE}`, as: admin.cookie });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
  });
});

describe('analytics by playbook version', () => {
  it('counts only the conversations started on that version; draft is the never-published ones', async () => {
    const all = (await funnel(admin.cookie)).json().started as number;
    await t.ctx.db.update(conversations).set({ typeVersion: 1 }).where(eq(conversations.id, ids.B));
    try {
      expect((await funnel(admin.cookie, '&version=1')).json().started).toBe(1);
      expect((await funnel(admin.cookie, '&version=2')).json().started).toBe(0);
      expect((await funnel(admin.cookie, '&version=draft')).json().started).toBe(all - 1);
    } finally {
      await t.ctx.db.update(conversations).set({ typeVersion: null }).where(eq(conversations.id, ids.B));
    }
  });
});

describe('analytics speed', () => {
  it('gives first-reply p50/p90 overall, by the AI and by the team, and the share answered within a minute', async () => {
    const res = await speed(admin.cookie);
    expect(res.statusCode).toBe(200);
    // Replies: B 10 s (AI), I 30 s (AI), C 120 s (person); D unanswered.
    expect(res.json()).toEqual({
      firstReplySeconds: { p50: 30, p90: 102 },
      agentFirstReplySeconds: { p50: 20, p90: 28 },
      teamFirstReplySeconds: { p50: 120, p90: 120 },
      withProspectMessage: 4,
      replied: 3,
      answeredWithinMinuteShare: 0.5,
    });
    const normalView = await speed(normal.cookie);
    expect(normalView.json()).toMatchObject({ firstReplySeconds: { p50: 10, p90: 10 }, withProspectMessage: 1, replied: 1 });
  });

  it('above the exact limit, reads the percentiles from the first-reply histograms within 5 %', async () => {
    const query = (range: string) => analyticsQuery.parse({ conversationType: String(typeId), ...Object.fromEntries(new URLSearchParams(range)) });
    const exact = await speedFigures(t.ctx, admin, query(MARCH.rollup), { exactLimit: Infinity });
    expect(exact).toEqual((await speed(admin.cookie)).json()); // E has no messages: March's speed is the day's
    for (const range of [MARCH.rollup, MARCH.mixed, MARCH.edges]) {
      const approximate = await speedFigures(t.ctx, admin, query(range), { exactLimit: 0 });
      expect(approximate).toMatchObject({ withProspectMessage: 4, replied: 3, answeredWithinMinuteShare: 0.5 });
      for (const key of ['firstReplySeconds', 'agentFirstReplySeconds', 'teamFirstReplySeconds'] as const) {
        for (const p of ['p50', 'p90'] as const) {
          const want = exact[key][p]!;
          expect(Math.abs(approximate[key][p]! - want) / want, `${range} ${key} ${p}`).toBeLessThanOrEqual(0.05);
        }
      }
    }
  });
});

describe('analytics outcomes', () => {
  it('counts each day\'s conversations by outcome; a NORMAL user only the granted accounts', async () => {
    const url = `/api/admin/analytics/outcomes?conversationType=${typeId}&${RANGE}`;
    const res = await t.request({ method: 'GET', url, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    // C ended; D needs a human; F ignored; A and G no prospect message; B and I in progress.
    expect(res.json()).toEqual({
      analysedOutcomes: [],
      days: [{ day: '2025-03-10', ended: 1, needsHuman: 1, errored: 0, ignored: 1, noResponse: 2, inProgress: 2, analysed: {} }],
    });
    const mine = await t.request({ method: 'GET', url, as: normal.cookie });
    expect(mine.json()).toEqual({
      analysedOutcomes: [],
      days: [{ day: '2025-03-10', ended: 0, needsHuman: 0, errored: 0, ignored: 0, noResponse: 1, inProgress: 1, analysed: {} }],
    });
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: `${url}&channel=pigeon`, as: admin.cookie })).statusCode).toBe(400);
  });
});

describe('analytics outcomes from the outcome analysis', () => {
  it('counts an analysed conversation under its analysed outcome, the others by their state', async () => {
    const url = `/api/admin/analytics/outcomes?conversationType=${typeId}&${RANGE}`;
    const analysed = { C: 'booked', B: 'qualified', D: 'needs human' } as const;
    await t.ctx.db.insert(conversationAnalyses).values(
      Object.entries(analysed).map(([key, outcome]) => ({ conversationId: ids[key], outcome, summary: 'A summary.', score: 50 })),
    );
    try {
      // C, B and D by their analysis; F ignored; A and G no prospect message; I in progress.
      expect((await t.request({ method: 'GET', url, as: admin.cookie })).json()).toEqual({
        analysedOutcomes: ['booked', 'needs human', 'qualified'],
        days: [{
          day: '2025-03-10', ended: 0, needsHuman: 0, errored: 0, ignored: 1, noResponse: 2, inProgress: 1,
          analysed: { booked: 1, 'needs human': 1, qualified: 1 },
        }],
      });
      expect((await t.request({ method: 'GET', url, as: normal.cookie })).json()).toEqual({
        analysedOutcomes: ['qualified'],
        days: [{ day: '2025-03-10', ended: 0, needsHuman: 0, errored: 0, ignored: 0, noResponse: 1, inProgress: 0, analysed: { qualified: 1 } }],
      });
    } finally {
      await t.ctx.db.delete(conversationAnalyses).where(inArray(conversationAnalyses.conversationId, Object.keys(analysed).map((k) => ids[k])));
    }
  });
});

describe('analytics after changes', () => {
  it('follows deletions and manual phase changes', async () => {
    expect((await t.request({ method: 'DELETE', url: `/api/conversation/${ids.G}`, as: admin.cookie })).statusCode).toBe(200);
    const set = await t.request({ method: 'PATCH', url: `/api/conversation/${ids.A}`, as: admin.cookie, payload: { phase: 3 } });
    expect(set.statusCode).toBe(200);
    expect((await funnel(admin.cookie)).json()).toEqual({ started: 6, steps: steps([5, 3, 3]), ended: 2, booked: 1 });
    // The rollup follows too: March is the day's figures and E.
    expect(await expectMonthPathsAgree()).toEqual({ started: 7, steps: steps([6, 4, 4]), ended: 3, booked: 1 });
  });

  it('the migration\'s one-time backfill builds the same rollup from existing conversations', async () => {
    const migration = readFileSync(new URL('../../db/migrations/0040_analytics-monthly-triggers.sql', import.meta.url), 'utf8');
    const backfill = migration.split('--> statement-breakpoint').at(-1)!;
    expect(backfill).toMatch(/^\s*INSERT INTO analytics_monthly/m);
    await t.ctx.db.execute(sql`delete from analytics_monthly`);
    await t.ctx.db.execute(sql.raw(backfill));
    expect(await expectMonthPathsAgree()).toEqual({ started: 7, steps: steps([6, 4, 4]), ended: 3, booked: 1 });
  });
});

describe('analytics of conversations started through the public API', () => {
  it('counts a web chat from its creation, and its first prospect message', async () => {
    const type = await buildConversationType(t.ctx, { phases: 2 });
    const from = new Date(Date.now() - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const url = (what: string) => `/api/admin/analytics/${what}?conversationType=${type.id}&from=${from}&to=${to}`;
    const created = await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: type.id } });
    expect(created.statusCode).toBe(201);
    expect((await t.request({ method: 'GET', url: url('funnel'), as: admin.cookie })).json()).toEqual({
      started: 1, steps: steps([1, 0]), ended: 0, booked: 0,
    });
    const { uuid } = created.json();
    expect((await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message: 'Hello?' } })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: url('speed'), as: admin.cookie })).json()).toMatchObject({
      firstReplySeconds: { p50: null, p90: null }, withProspectMessage: 1, replied: 0, answeredWithinMinuteShare: 0,
    });
  });
});
