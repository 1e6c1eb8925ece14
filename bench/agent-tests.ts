/**
 * Agent tests (issue 25): 20 scenarios × 5 runs against a fake LLM that takes 1 s per call. Not part of
 * `npm test`.
 *
 *   node --import tsx bench/agent-tests.ts
 *
 * Each scenario is a scripted prospect (opening + one more message) with a server-checked criterion and a
 * judged one, so a run makes 5 LLM calls of 1 s each (transition + draft per prospect message, and the
 * judge): 5 s if nothing overlaps, and 100 runs one after another would take 500 s. Two paths:
 * - jobs: POST-equivalent startTestRun → one `agent.test-run` job per run, the app's own polling runner
 *   (started, as on a server) plays them; the clock stops when the batch's report is written.
 * - cli: runBatch in-process, as `npm run agent:test` does (TEST_RUN_CONCURRENCY runs at once).
 * On PGlite in memory; the LLM is the loopback OpenAI-compatible fake (real SDK and HTTP) with 1 s latency.
 */
import { eq } from 'drizzle-orm';
import { loadavg } from 'node:os';
import { buildApp } from '../apps/server/src/app.ts';
import { benchConfig } from './support/bench-config.ts';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { agentTestRuns, agentTestScenarios } from '../apps/server/src/db/schema/index.ts';
import { readSnapshot } from '../apps/server/src/conversations/playbook-versions.ts';
import { runBatch, TEST_RUN_CONCURRENCY } from '../apps/server/src/agent/testing/run-batch.ts';
import { startTestRun } from '../apps/server/src/modules/agent-tests/agent-tests.service.ts';
import { buildPlaybook } from '../apps/server/src/test/agent-factories.ts';
import { OpenAiFake } from '../apps/server/src/test/fakes/openai-fake.ts';

const SCENARIOS = 20;
const RUNS = 5;
const LATENCY_MS = 1000;
const CALLS_PER_RUN = 5;

const fake = new OpenAiFake();
fake.latencyMs = LATENCY_MS;
await fake.start();
fake.on('criterion_judge', { json: { pass: true, reason: 'fine' } });
const database = openDatabase({ pgliteDir: 'memory://' });
await database.migrate();
const config = benchConfig({ LOG_LEVEL: 'silent', ...fake.env({ LLM_MAX_RETRIES: '0' }) });
const { app, ctx } = await buildApp({ config, database });
await app.ready();
const type = await buildPlaybook(ctx, { phases: 3 });
const scenarios = Array.from({ length: SCENARIOS }, (_, i) => ({
  name: `scenario ${i + 1}`,
  opening: `Hello, I am prospect ${i + 1}`,
  messages: ['Tell me more'],
  criteria: [{ kind: 'neverSays' as const, text: 'discount' }, { kind: 'judge' as const, rubric: 'The agent stays polite.' }],
}));
await ctx.db.insert(agentTestScenarios).values(scenarios.map((s) => ({ conversationTypeId: type.id, name: s.name, definition: s })));
const serialSeconds = (SCENARIOS * RUNS * CALLS_PER_RUN * LATENCY_MS) / 1000;
console.log(`${SCENARIOS} scenarios × ${RUNS} runs, ${CALLS_PER_RUN} LLM calls of ${LATENCY_MS} ms per run: ${serialSeconds} s if run one after another. load ${loadavg()[0].toFixed(1)}`);

// Path 1: jobs on the app's runner.
ctx.jobs.start();
let started = performance.now();
const { id } = await startTestRun(ctx, type.id, { version: 'draft', runs: RUNS });
for (;;) {
  const [row] = await ctx.db.select({ status: agentTestRuns.status, passRate: agentTestRuns.passRate, finished: agentTestRuns.finished }).from(agentTestRuns).where(eq(agentTestRuns.id, id));
  if (row.status === 'done') {
    console.log(`jobs: ${((performance.now() - started) / 1000).toFixed(1)} s for ${row.finished} runs (pass rate ${row.passRate}), ${fake.requests.length} LLM calls`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

// Path 2: in-process, as the CLI runs.
fake.requests.length = 0;
started = performance.now();
const snapshot = (await readSnapshot(ctx.db, type.id, 'draft'))!;
const report = await runBatch(ctx, { type, version: 'draft', snapshot, scenarios, runs: RUNS, minPassRate: null });
console.log(`cli:  ${((performance.now() - started) / 1000).toFixed(1)} s for ${report.runs} runs (pass rate ${report.passRate}, ${TEST_RUN_CONCURRENCY} at once), ${fake.requests.length} LLM calls`);

await app.close();
await database.close();
await fake.close();
