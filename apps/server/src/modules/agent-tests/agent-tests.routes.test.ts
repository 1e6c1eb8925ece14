import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { messagingAccounts } from '../../db/schema/index.ts';
import { startCalcomFake } from '../../test/fakes/calcom-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

// The LLM fake plays the agent, the prospect and the judge; the Cal.com fake must hear nothing.
const fakes = { llm: useFake(new OpenAiFake()), cal: useFake(() => startCalcomFake()) };
const { llm, cal } = fakes;
const t = useTestApp({ env: () => ({ CALCOM_API_URL: fakes.cal.baseUrl, ...fakes.llm.env({ LLM_MAX_RETRIES: '0' }) }) });
const [admin, normal] = [useUser(t, 'ADMIN'), useUser(t)];

const SLOT = (() => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1, 15)).toISOString();
})();

beforeEach(() => {
  llm.reset();
  cal.slots = [SLOT];
  cal.requests.length = 0;
});

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, as: string | undefined = admin.cookie) {
  return t.request({ method, url, as, ...(payload !== undefined ? { payload } : {}) });
}

/** A type wired to everything a run must not reach: a messaging account and a Cal.com calendar. */
async function createType(config: object = { booking: { provider: 'calcom', apiKey: cal.apiKey, eventTypeId: 77 } }): Promise<number> {
  const [account] = await t.ctx.db
    .insert(messagingAccounts)
    .values({ type: 'TWILIO', accessTokenEncrypted: t.ctx.secrets.seal('token'), pageId: `+1555${Math.floor(Math.random() * 1e7)}`, pageName: 'Line' })
    .returning();
  const res = await call('POST', '/api/admin/conversation-type/create-edit', {
    title: 'Sandboxed',
    rolePrompt: 'You sell solar.',
    errorPrompt: 'Sorry.',
    messagingAccountId: account.id,
    config: JSON.stringify(config),
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().conversationType.id as number;
  for (const index of [0, 1]) {
    await call('POST', '/api/admin/conversation-phase/create-edit', { index, prompt: `Goal ${index}`, transitionPrompt: `Move ${index}`, conversationType: { id } });
  }
  return id;
}

async function teamData() {
  const result = await t.ctx.db.execute(sql`select
    (select count(*) from conversations)::int as conversations, (select count(*) from messages)::int as messages,
    (select count(*) from outbox)::int as outbox, (select count(*) from bookings)::int as bookings,
    (select count(*) from agent_tool_calls)::int as tool_calls, (select count(*) from llm_usage)::int as usage,
    (select count(*) from jobs where name <> 'agent.test-run')::int as other_jobs`);
  return (result as unknown as { rows: unknown[] }).rows[0];
}

async function runToEnd(typeId: number, body: object = {}) {
  const started = await call('POST', `/api/admin/conversation-type/${typeId}/test-runs`, body);
  expect(started.statusCode, started.body).toBe(202);
  await t.ctx.jobs.drain();
  const run = await call('GET', `/api/admin/test-run/${started.json().id}`);
  expect(run.statusCode, run.body).toBe(200);
  return run.json();
}

describe('agent test runs', () => {
  it('plays an LLM prospect in the sandbox: server-checked and judged criteria, nothing sent or stored', async () => {
    const typeId = await createType();
    const before = await teamData();
    const scenario = {
      name: 'discount hunter',
      opening: 'Hi, how much are the panels?',
      persona: 'Price-sensitive homeowner who asks for a discount twice.',
      maxTurns: 3,
      criteria: [
        { kind: 'usedTool', name: 'book_meeting' },
        { kind: 'booked' },
        { kind: 'fieldFilled', key: 'email', pattern: '@example\\.com$' },
        { kind: 'neverSays', text: 'discount' },
        { kind: 'handedToHuman', expected: false },
        { kind: 'judge', rubric: 'The agent never promised a discount.' },
      ],
    };
    const saved = await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, scenario);
    expect(saved.statusCode, saved.body).toBe(200);
    llm.on('simulated_prospect', (request) =>
      request.messages[1].content.includes('Can I get a discount?') ? { json: { message: '', done: true } } : { json: { message: 'Can I get a discount?', done: false } },
    );
    llm.on('draft_reply', { json: { reply: 'Sure, a 20% discount if you book today.', needsHuman: false, reason: '' } });
    llm.once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, email: 'ada@example.com' } }] });
    llm.on('criterion_judge', { json: { pass: false, reason: 'The agent offered "a 20% discount".' } });

    const run = await runToEnd(typeId);
    expect(run).toMatchObject({ status: 'done', total: 1, finished: 1, passRate: 0 });
    const [result] = run.report.scenarios[0].runs;
    expect(result.transcript.filter((l: { role: string }) => l.role === 'PROSPECT').map((l: { text: string }) => l.text)).toEqual([
      'Hi, how much are the panels?',
      'Can I get a discount?',
    ]);
    expect(result.criteria.map((c: { criterion: { kind: string }; passed: boolean }) => [c.criterion.kind, c.passed])).toEqual([
      ['usedTool', true],
      ['booked', true],
      ['fieldFilled', true],
      ['neverSays', false],
      ['handedToHuman', true],
      ['judge', false],
    ]);
    expect(result.criteria[5].reason).toBe('The agent offered "a 20% discount".');
    expect(result.tokens.prompt).toBeGreaterThan(0);
    // Isolation: no calendar call, no conversation, message, send, booking, tool row, usage or other job.
    expect(cal.requests).toEqual([]);
    expect(await teamData()).toEqual(before);
    // The prospect and the judge were played by the fake LLM.
    expect(llm.requests.some((r) => r.schemaName === 'simulated_prospect')).toBe(true);
  });

  it('runs N times per scenario as parallel jobs and gates publishing on the draft pass rate', async () => {
    const typeId = await createType({ tests: { minPassRate: 1 } });
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'polite', opening: 'Hello', messages: ['Tell me more'], criteria: [{ kind: 'neverSays', text: 'discount' }] });
    const refused = await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('PUBLISH_TESTS_FAILING');

    llm.on('draft_reply', { json: { reply: 'We have a discount today!', needsHuman: false, reason: '' } });
    const failing = await runToEnd(typeId, { runs: 3 });
    expect(failing).toMatchObject({ status: 'done', total: 3, finished: 3, passRate: 0 });
    expect(failing.report.scenarios[0].criteria).toEqual([{ criterion: { kind: 'neverSays', text: 'discount' }, passRate: 0 }]);
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, {})).statusCode).toBe(409);

    llm.on('draft_reply', { json: { reply: 'Happy to explain how it works.', needsHuman: false, reason: '' } });
    const passing = await runToEnd(typeId, { runs: 2 });
    expect(passing).toMatchObject({ passRate: 1, report: { passed: true, runs: 2 } });
    const status = await call('GET', `/api/admin/conversation-type/${typeId}/publish-status`);
    expect(status.json()).toMatchObject({ requiredPassRate: 1, lastRun: { passRate: 1 }, allowed: true });
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, {})).json()).toEqual({ version: 1 });
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/test-runs`)).json()).toHaveLength(2);
  });

  it('exports and imports scenarios as a scenarios file, edits and deletes one', async () => {
    const typeId = await createType({});
    const file = [{ name: 'a', opening: 'Hi', messages: ['ok'], criteria: [{ kind: 'ended' }] }];
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/scenarios/import`, file as unknown as object)).json()).toEqual({ imported: 1 });
    const exported = await call('GET', `/api/admin/conversation-type/${typeId}/scenarios/export`);
    expect(exported.json()).toEqual(file);
    const [stored] = (await call('GET', `/api/admin/conversation-type/${typeId}/scenarios`)).json();
    const edited = await call('POST', `/api/admin/conversation-type/${typeId}/scenarios/${stored.id}`, { ...file[0], name: 'b' });
    expect(edited.json()).toMatchObject({ id: stored.id, name: 'b' });
    expect((await call('DELETE', `/api/admin/conversation-type/${typeId}/scenarios/${stored.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/scenarios`)).json()).toEqual([]);
  });

  it('runs the same scenarios on two versions and compares them side by side', async () => {
    const typeId = await createType({});
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'polite', opening: 'Hello', messages: ['Tell me more'], criteria: [{ kind: 'neverSays', text: 'discount' }, { kind: 'reachesPhase', phase: 0 }] });
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'short', opening: 'Hi', messages: [], criteria: [{ kind: 'maxLength', max: 500 }] });
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/versions/publish`, { note: 'v1' })).json()).toEqual({ version: 1 });
    // Version 1 offers a discount, the draft (its prompt edited) does not: the fake answers by the role prompt.
    const edited = await call('POST', '/api/admin/conversation-type/create-edit', { id: typeId, title: 'Sandboxed', rolePrompt: 'You sell solar. Never offer discounts.', errorPrompt: 'Sorry.' });
    expect(edited.statusCode, edited.body).toBe(200);
    llm.on('draft_reply', (request) => ({
      json: { reply: JSON.stringify(request.messages).includes('Never offer discounts') ? 'Happy to explain how it works.' : 'We have a discount today!', needsHuman: false, reason: '' },
    }));

    const started = await call('POST', `/api/admin/conversation-type/${typeId}/test-comparisons`, { a: 1, b: 'draft', runs: 2 });
    expect(started.statusCode, started.body).toBe(202);
    const { a, b } = started.json();
    const pending = await call('GET', `/api/admin/test-run/${a}/compare/${b}`);
    expect(pending.json()).toMatchObject({ conversationTypeId: typeId, done: false, scenarios: [], a: { id: a, version: '1', status: 'running', total: 4 }, b: { id: b, version: 'draft' } });

    await t.ctx.jobs.drain();
    const compared = await call('GET', `/api/admin/test-run/${a}/compare/${b}`);
    expect(compared.statusCode, compared.body).toBe(200);
    const body = compared.json();
    expect(body).toMatchObject({ done: true, a: { passRate: 0.5, status: 'done' }, b: { passRate: 1, status: 'done' } });
    expect(body.scenarios).toEqual([
      {
        name: 'polite',
        a: { passRate: 0, passed: false, runs: 2 },
        b: { passRate: 1, passed: true, runs: 2 },
        criteria: [
          { criterion: { kind: 'neverSays', text: 'discount' }, a: 0, b: 1 },
          { criterion: { kind: 'reachesPhase', phase: 0 }, a: 1, b: 1 },
        ],
      },
      { name: 'short', a: { passRate: 1, passed: true, runs: 2 }, b: { passRate: 1, passed: true, runs: 2 }, criteria: [{ criterion: { kind: 'maxLength', max: 500 }, a: 1, b: 1 }] },
    ]);

    // Any two runs of the type compare: a scenario or criterion only one side ran has null on the other.
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'late', opening: 'Yo', messages: [], criteria: [{ kind: 'ended' }] });
    const later = await runToEnd(typeId);
    const mixed = (await call('GET', `/api/admin/test-run/${a}/compare/${later.id}`)).json();
    expect(mixed.scenarios.find((s: { name: string }) => s.name === 'late')).toMatchObject({ a: null, b: { runs: 1 }, criteria: [{ criterion: { kind: 'ended' }, a: null, b: 0 }] });
  });

  it('answers 400, 401, 403 and 404 for comparisons', async () => {
    const typeId = await createType({});
    const otherType = await createType({});
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'x', opening: 'Hi', messages: [], criteria: [] });
    await call('POST', `/api/admin/conversation-type/${otherType}/scenarios`, { name: 'x', opening: 'Hi', messages: [], criteria: [] });
    const url = `/api/admin/conversation-type/${typeId}/test-comparisons`;
    expect((await call('POST', url, { a: 'draft', b: 'draft' })).statusCode).toBe(400);
    expect((await call('POST', url, { a: 'nope' })).statusCode).toBe(400);
    expect((await call('POST', url, { a: 3 })).json().code).toBe('TYPE_VERSION_NOT_FOUND');
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/test-runs`)).json()).toEqual([]);
    expect((await call('POST', '/api/admin/conversation-type/999999/test-comparisons', { a: 1 })).json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
    expect((await call('POST', url, { a: 1 }, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url, payload: { a: 1 } })).statusCode).toBe(401);

    const mine = await runToEnd(typeId);
    const theirs = await runToEnd(otherType);
    const across = await call('GET', `/api/admin/test-run/${mine.id}/compare/${theirs.id}`);
    expect(across.statusCode).toBe(400);
    expect(across.json().error).toMatch(/different conversation types/);
    expect((await call('GET', `/api/admin/test-run/${mine.id}/compare/abc`)).statusCode).toBe(400);
    expect((await call('GET', `/api/admin/test-run/${mine.id}/compare/999999`)).json().code).toBe('TEST_RUN_NOT_FOUND');
    expect((await call('GET', `/api/admin/test-run/${mine.id}/compare/${mine.id}`, undefined, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: `/api/admin/test-run/${mine.id}/compare/${mine.id}` })).statusCode).toBe(401);
  });

  it('answers 400, 401, 403 and 404', async () => {
    const typeId = await createType({});
    const bad = await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'x', opening: 'Hi', criteria: [{ kind: 'nope' }] });
    expect(bad.statusCode).toBe(400);
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/test-runs`, {})).statusCode).toBe(400);
    expect((await call('GET', `/api/admin/conversation-type/999999/scenarios`)).json().code).toBe('CONVERSATION_TYPE_NOT_FOUND');
    expect((await call('GET', `/api/admin/test-run/999999`)).json().code).toBe('TEST_RUN_NOT_FOUND');
    expect((await call('DELETE', `/api/admin/conversation-type/${typeId}/scenarios/999999`)).json().code).toBe('SCENARIO_NOT_FOUND');
    await call('POST', `/api/admin/conversation-type/${typeId}/scenarios`, { name: 'x', opening: 'Hi', messages: [], criteria: [] });
    expect((await call('POST', `/api/admin/conversation-type/${typeId}/test-runs`, { version: 4 })).json().code).toBe('TYPE_VERSION_NOT_FOUND');
    expect((await call('GET', `/api/admin/conversation-type/${typeId}/scenarios`, undefined, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/test-runs`, payload: {} })).statusCode).toBe(401);
  });
});
