import { type Scenario, scenarioSchema } from '@sales-agent/shared/schemas/agent-tests';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { buildReport } from '../../agent/testing/run-batch.ts';
import { type RunResult, runScenario, SandboxSetupError } from '../../agent/testing/sandbox-run.ts';
import { getLlmProvider } from '../../agent/llm/select-provider.ts';
import { draftSnapshot, type PlaybookSnapshot, readSnapshot, type VersionRef } from '../../conversations/playbook-versions.ts';
import { agentTestRuns, agentTestScenarios, conversationTypes } from '../../db/schema/index.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { typeNotFound } from '../conversation-types/conversation-types.service.ts';
import { lastDraftRun, requiredPassRate } from '../conversation-types/publish-gate.ts';
import { versionNotFound } from '../conversation-types/type-versions.service.ts';

export const TEST_RUN_JOB = 'agent.test-run';
const scenarioNotFound = () => notFound('Test scenario not found', 'SCENARIO_NOT_FOUND');
const runNotFound = () => notFound('Test run not found', 'TEST_RUN_NOT_FOUND');

export async function typeOf(ctx: AppContext, typeId: number) {
  const [type] = await ctx.db.select({ id: conversationTypes.id, title: conversationTypes.title }).from(conversationTypes).where(eq(conversationTypes.id, typeId)).limit(1);
  if (!type) throw typeNotFound();
  return type;
}

const present = (row: typeof agentTestScenarios.$inferSelect) => ({ id: row.id, ...(row.definition as Scenario) });

export async function listScenarios(ctx: AppContext, typeId: number) {
  await typeOf(ctx, typeId);
  const rows = await ctx.db.select().from(agentTestScenarios).where(eq(agentTestScenarios.conversationTypeId, typeId)).orderBy(asc(agentTestScenarios.id));
  return rows.map(present);
}

export async function saveScenario(ctx: AppContext, typeId: number, scenario: Scenario, id?: number) {
  await typeOf(ctx, typeId);
  if (id) {
    const [row] = await ctx.db
      .update(agentTestScenarios)
      .set({ name: scenario.name, definition: scenario })
      .where(and(eq(agentTestScenarios.id, id), eq(agentTestScenarios.conversationTypeId, typeId)))
      .returning();
    if (!row) throw scenarioNotFound();
    return present(row);
  }
  const [row] = await ctx.db.insert(agentTestScenarios).values({ conversationTypeId: typeId, name: scenario.name, definition: scenario }).returning();
  return present(row);
}

export async function deleteScenario(ctx: AppContext, typeId: number, id: number) {
  const rows = await ctx.db
    .delete(agentTestScenarios)
    .where(and(eq(agentTestScenarios.id, id), eq(agentTestScenarios.conversationTypeId, typeId)))
    .returning({ id: agentTestScenarios.id });
  if (!rows.length) throw scenarioNotFound();
}

/** Import: the file's scenarios are added (a scenarios file, the same shape `--scenarios` reads). */
export async function importScenarios(ctx: AppContext, typeId: number, scenarios: Scenario[]) {
  await typeOf(ctx, typeId);
  if (scenarios.length) {
    await ctx.db.insert(agentTestScenarios).values(scenarios.map((s) => ({ conversationTypeId: typeId, name: s.name, definition: s })));
  }
  return { imported: scenarios.length };
}

/** What a queued batch carries until it is done (the report replaces it). */
interface PendingBatch {
  pending: true;
  type: { id: number; title: string | null };
  snapshot: PlaybookSnapshot;
  scenarios: Scenario[];
  runs: number;
  minPassRate: number | null;
  startedAt: number;
  results: { s: number; result: RunResult }[];
}

/**
 * Starts a batch: every scenario of the type (or the chosen ones) `runs` times against the version, one job
 * per run, so the runs play in parallel (and across server processes on PostgreSQL). Answers the run's id.
 */
export async function startTestRun(ctx: AppContext, typeId: number, input: { version: VersionRef; runs: number; scenarioIds?: number[] }) {
  const type = await typeOf(ctx, typeId);
  const snapshot = await readSnapshot(ctx.db, typeId, input.version);
  if (!snapshot) throw versionNotFound(input.version);
  let scenarios = await listScenarios(ctx, typeId);
  if (input.scenarioIds) scenarios = scenarios.filter((s) => input.scenarioIds!.includes(s.id));
  if (scenarios.length === 0) throw badRequest('There is no test scenario to run: write one first.', 'VALIDATION_ERROR');
  const plain = scenarios.map(({ id: _id, ...rest }) => scenarioSchema.parse(rest));
  if (getLlmProvider(ctx).kind === 'offline-demo') {
    const persona = plain.find((s) => s.messages === undefined);
    if (persona) throw badRequest(new SandboxSetupError(`Scenario "${persona.name}" has a persona, which needs an LLM (OPENAI_API_KEY); give it scripted messages to run offline.`).message, 'VALIDATION_ERROR');
  }
  const batch: PendingBatch = { pending: true, type, snapshot, scenarios: plain, runs: input.runs, minPassRate: requiredPassRate(snapshot.config), startedAt: Date.now(), results: [] };
  const total = plain.length * input.runs;
  return ctx.db.transaction(async (tx) => {
    const [run] = await tx.insert(agentTestRuns).values({ conversationTypeId: typeId, version: String(input.version), total, report: batch }).returning({ id: agentTestRuns.id });
    for (let s = 0; s < plain.length; s += 1) {
      for (let r = 0; r < input.runs; r += 1) await ctx.jobs.enqueue(TEST_RUN_JOB, { runId: run.id, scenario: s }, { executor: tx, maxAttempts: 2 });
    }
    return { id: run.id };
  });
}

/** One run of a batch (the job's work): played in the sandbox, appended; the last one writes the report. */
export async function playOneRun(ctx: AppContext, runId: number, s: number): Promise<void> {
  const [row] = await ctx.db.select().from(agentTestRuns).where(eq(agentTestRuns.id, runId)).limit(1);
  const batch = row?.report as PendingBatch | null;
  if (!row || !batch?.pending) return;
  let result: RunResult;
  try {
    result = await runScenario(ctx, batch.snapshot, batch.scenarios[s]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    result = { scenario: batch.scenarios[s].name, passed: false, criteria: [], transcript: [], turns: 0, outcome: 'errored', finalPhase: 0, toolCalls: [], tokens: { prompt: 0, completion: 0 }, costUsd: 0, durationMs: 0, error: message };
  }
  // Appended in one statement: parallel runs of the batch never overwrite each other.
  const [updated] = await ctx.db
    .update(agentTestRuns)
    .set({
      report: sql`jsonb_set(${agentTestRuns.report}, '{results}', (${agentTestRuns.report} -> 'results') || ${JSON.stringify([{ s, result }])}::jsonb)`,
      finished: sql`${agentTestRuns.finished} + 1`,
    })
    .where(and(eq(agentTestRuns.id, runId), sql`(${agentTestRuns.report} ->> 'pending') = 'true'`))
    .returning();
  if (!updated || updated.finished < updated.total) return;
  const done = updated.report as PendingBatch;
  const grouped: RunResult[][] = done.scenarios.map(() => []);
  for (const entry of done.results) grouped[entry.s]?.push(entry.result);
  const report = buildReport({ ...done, version: updated.version }, grouped, Date.now() - done.startedAt);
  await ctx.db
    .update(agentTestRuns)
    .set({ status: 'done', report, passRate: String(report.passRate) })
    .where(and(eq(agentTestRuns.id, runId), sql`(${agentTestRuns.report} ->> 'pending') = 'true'`));
}

/** A run's progress and, once done, its report. */
export async function getTestRun(ctx: AppContext, runId: number) {
  const [row] = await ctx.db.select().from(agentTestRuns).where(eq(agentTestRuns.id, runId)).limit(1);
  if (!row) throw runNotFound();
  const report = row.report as { pending?: boolean } | null;
  return {
    id: row.id,
    conversationTypeId: row.conversationTypeId,
    version: row.version,
    status: row.status,
    total: row.total,
    finished: row.finished,
    passRate: row.passRate === null ? null : Number(row.passRate),
    createdAt: row.createdAt.toISOString(),
    report: report && !report.pending ? report : null,
  };
}

export async function listTestRuns(ctx: AppContext, typeId: number) {
  await typeOf(ctx, typeId);
  const rows = await ctx.db
    .select({ id: agentTestRuns.id, version: agentTestRuns.version, status: agentTestRuns.status, total: agentTestRuns.total, finished: agentTestRuns.finished, passRate: agentTestRuns.passRate, createdAt: agentTestRuns.createdAt })
    .from(agentTestRuns)
    .where(eq(agentTestRuns.conversationTypeId, typeId))
    .orderBy(desc(agentTestRuns.id))
    .limit(20);
  return rows.map((r) => ({ ...r, passRate: r.passRate === null ? null : Number(r.passRate), createdAt: r.createdAt.toISOString() }));
}

/** What the publish screen shows: the required pass rate and the last run on the draft as it is now. */
export async function publishStatus(ctx: AppContext, typeId: number) {
  const snapshot = await draftSnapshot(ctx.db, typeId);
  if (!snapshot) throw typeNotFound();
  const required = requiredPassRate(snapshot.config);
  const lastRun = await lastDraftRun(ctx, typeId, snapshot);
  return { requiredPassRate: required, lastRun, allowed: required === null || (lastRun !== null && lastRun.passRate >= required) };
}
