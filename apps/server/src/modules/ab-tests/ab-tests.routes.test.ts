import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookings, conversations } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildConversation, buildConversationType, buildMessagingAccount, buildProspect, grantAccount } from '../../test/conversation-factories.ts';
import { publishTypeVersion } from '../conversation-types/type-versions.service.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const url = (typeId: number, tail = '') => `/api/admin/conversation-type/${typeId}/ab-test${tail}`;

async function typeWithVersions(count: number, phases = 2) {
  const type = await buildConversationType(t.ctx, { phases, initialMessage: null });
  for (let i = 0; i < count; i += 1) await publishTypeVersion(t.ctx, type.id, `v${i + 1}`, null);
  return type.id;
}

async function startChat(typeId: number) {
  const res = await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: typeId } });
  expect(res.statusCode).toBe(201);
  const [row] = await t.ctx.db
    .select({ typeVersion: conversations.typeVersion, abTestId: conversations.abTestId, abArm: conversations.abArm })
    .from(conversations)
    .where(eq(conversations.uuid, res.json().uuid));
  return row;
}

describe('A/B test routes', () => {
  it('starts, lists and stops a test; new conversations follow the split, then the winner', async () => {
    const typeId = await typeWithVersions(2);
    // All to B (weight 1): the split is decided where the conversation is created.
    const started = await t.request({ method: 'POST', url: url(typeId), as: admin.cookie, payload: { versionA: 1, versionB: 2, weightB: 1 } });
    expect(started.statusCode).toBe(201);
    const test = started.json();
    expect(test).toMatchObject({ versionA: 1, versionB: 2, weightB: 1, winner: null, stoppedAt: null, running: true });
    expect(await startChat(typeId)).toEqual({ typeVersion: 2, abTestId: test.id, abArm: 'B' });

    const list = await t.request({ method: 'GET', url: url(typeId), as: admin.cookie });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ running: { id: test.id }, tests: [{ id: test.id }] });

    const again = await t.request({ method: 'POST', url: url(typeId), as: admin.cookie, payload: { versionA: 2, versionB: 1, weightB: 0.5 } });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('AB_TEST_RUNNING');

    // Stopped with A as the winner: every new conversation starts on version 1 although 2 is newer.
    const stopped = await t.request({ method: 'POST', url: url(typeId, '/stop'), as: admin.cookie, payload: { winner: 'A' } });
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toMatchObject({ id: test.id, winner: 'A', running: false });
    expect(await startChat(typeId)).toEqual({ typeVersion: 1, abTestId: null, abArm: null });
    expect((await t.request({ method: 'GET', url: url(typeId), as: admin.cookie })).json()).toMatchObject({ running: null });
    const twice = await t.request({ method: 'POST', url: url(typeId, '/stop'), as: admin.cookie, payload: { winner: 'A' } });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('AB_TEST_NOT_RUNNING');

    // A version published after the stop is the new default again.
    await publishTypeVersion(t.ctx, typeId, 'v3', null);
    expect((await startChat(typeId)).typeVersion).toBe(3);
  });

  it('weight 0 sends every new conversation to A', async () => {
    const typeId = await typeWithVersions(2);
    const started = await t.request({ method: 'POST', url: url(typeId), as: admin.cookie, payload: { versionA: 2, versionB: 1, weightB: 0 } });
    expect(started.statusCode).toBe(201);
    expect(await startChat(typeId)).toMatchObject({ typeVersion: 2, abArm: 'A' });
  });

  it('answers 400, 401, 403 and 404', async () => {
    const typeId = await typeWithVersions(2);
    const post = (payload: unknown, as?: string, id = typeId) => t.request({ method: 'POST', url: url(id), as, payload: payload as object });
    expect((await post({ versionA: 1, versionB: 1, weightB: 0.5 }, admin.cookie)).statusCode).toBe(400);
    expect((await post({ versionA: 1, versionB: 2, weightB: 1.5 }, admin.cookie)).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: url(typeId, '/stop'), as: admin.cookie, payload: { winner: 'C' } })).statusCode).toBe(400);
    expect((await post({ versionA: 1, versionB: 2, weightB: 0.5 })).statusCode).toBe(401);
    expect((await post({ versionA: 1, versionB: 2, weightB: 0.5 }, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: url(typeId), as: normal.cookie })).statusCode).toBe(403);
    const noVersion = await post({ versionA: 1, versionB: 7, weightB: 0.5 }, admin.cookie);
    expect(noVersion.statusCode).toBe(404);
    expect(noVersion.json().code).toBe('TYPE_VERSION_NOT_FOUND');
    const noType = await post({ versionA: 1, versionB: 2, weightB: 0.5 }, admin.cookie, 999_999);
    expect(noType.statusCode).toBe(404);
    expect(noType.json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
  });
});

describe('A/B comparison (GET /api/admin/analytics/ab-test)', () => {
  const day = Date.UTC(2025, 4, 5, 12);
  const RANGE = 'from=2025-05-05&to=2025-05-05';
  let typeId = 0;
  let testId = 0;
  let prospectOf: () => Promise<number>;

  /** n conversations of an arm; the first `ended` reach phase 2 (ended), the next `booked` book at phase 1. */
  async function seedArm(arm: 'A' | 'B', n: number, ended: number, booked: number, prospect = false, start = day) {
    for (let i = 0; i < n; i += 1) {
      const phase = i < ended ? 2 : i < ended + booked ? 1 : 0;
      const c = await buildConversation(t.ctx, { conversationTypeId: typeId, phase, createdAt: new Date(start + i * 1000), prospectId: prospect ? await prospectOf() : null });
      await t.ctx.db.update(conversations).set({ abTestId: testId, abArm: arm, typeVersion: arm === 'A' ? 1 : 2 }).where(eq(conversations.id, c.id));
      if (i >= ended && i < ended + booked) {
        await t.ctx.db.insert(bookings).values({ conversationId: c.id, provider: 'demo', externalId: `ab-${c.id}`, start: new Date(day + 86_400_000), end: new Date(day + 88_200_000), timeZone: 'UTC' });
      }
    }
  }

  beforeAll(async () => {
    typeId = await typeWithVersions(2);
    const account = await buildMessagingAccount(t.ctx);
    await grantAccount(t.ctx, normal.id, account.id);
    prospectOf = async () => (await buildProspect(t.ctx, account.id)).id;
    const res = await t.request({ method: 'POST', url: url(typeId), as: admin.cookie, payload: { versionA: 1, versionB: 2, weightB: 0.5 } });
    testId = res.json().id;
    // A: 10 conversations, 1 ended. B: 10, 1 ended + 1 booked (on the granted account, with 1 of A's).
    await seedArm('A', 9, 1, 0);
    await seedArm('A', 1, 0, 0, true);
    await seedArm('B', 8, 1, 0);
    await seedArm('B', 2, 0, 1, true);
  });

  const compare = (as: string, extra = '') => t.request({ method: 'GET', url: `/api/admin/analytics/ab-test?conversationType=${typeId}&${RANGE}${extra}`, as });

  it('gives each arm its funnel, conversion and Wilson interval, and says the difference is not yet significant', async () => {
    const res = await compare(admin.cookie);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.test).toMatchObject({ id: testId, running: true });
    expect(body.arms.map((a: { arm: string; version: number; converted: number; conversionRate: number }) => [a.arm, a.version, a.converted, a.conversionRate])).toEqual([
      ['A', 1, 1, 0.1],
      ['B', 2, 2, 0.2],
    ]);
    expect(body.arms[0].funnel).toEqual({ started: 10, steps: [{ phase: 0, label: 'Phase 0', reached: 10 }, { phase: 1, label: 'Phase 1', reached: 1 }], ended: 1, booked: 0 });
    expect(body.arms[1].funnel).toMatchObject({ started: 10, ended: 1, booked: 1 });
    expect(body.arms[0].interval.low).toBeCloseTo(0.01788, 4);
    expect(body.arms[0].interval.high).toBeCloseTo(0.40415, 4);
    expect(body.comparison.pValue).toBeCloseTo(0.53117, 4);
    expect(body.comparison.significant).toBe(false);
    expect(body.verdict).toMatch(/^The difference is not yet significant \(p = 0\.531\)/);
  });

  it('says which version converts better once the difference is significant', async () => {
    // The next day: A 1/10, B 10/10.
    const next = day + 86_400_000;
    await seedArm('A', 10, 1, 0, false, next);
    await seedArm('B', 10, 10, 0, false, next);
    const body = (await t.request({ method: 'GET', url: `/api/admin/analytics/ab-test?conversationType=${typeId}&from=2025-05-06&to=2025-05-06`, as: admin.cookie })).json();
    expect(body.arms[1].converted).toBe(10);
    expect(body.comparison.significant).toBe(true);
    expect(body.verdict).toMatch(/^Version 2 \(arm B\) converts better than version 1 \(arm A\): 100\.0 % against 10\.0 % \(p < 0\.001/);
  });

  it('a NORMAL user compares only the granted accounts; 404 for an unknown test', async () => {
    const body = (await compare(normal.cookie)).json();
    expect(body.arms.map((a: { funnel: { started: number }; converted: number }) => [a.funnel.started, a.converted])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect((await compare(admin.cookie, '&abTest=999999')).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/api/admin/analytics/ab-test?conversationType=${typeId}&${RANGE}` })).statusCode).toBe(401);
  });
});
