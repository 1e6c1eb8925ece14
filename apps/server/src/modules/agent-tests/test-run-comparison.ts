import { readSnapshot, type VersionRef } from '../../conversations/playbook-versions.ts';
import { versionNotFound } from '../conversation-types/type-versions.service.ts';
import { canonical, type ScenarioReport, type TestReport } from '../../agent/testing/run-batch.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { getTestRun, startTestRun, typeOf } from './agent-tests.service.ts';

/**
 * Side by side (issue 25): the type's scenarios (or the chosen ones) run on two versions as two ordinary
 * batches started together; the comparison reads them back. Answers both runs' ids.
 */
export async function startComparison(ctx: AppContext, typeId: number, input: { a: VersionRef; b: VersionRef; runs: number; scenarioIds?: number[] }) {
  // Both versions must exist before either batch starts (no lone half of a comparison).
  await typeOf(ctx, typeId);
  for (const ref of [input.a, input.b]) if (!(await readSnapshot(ctx.db, typeId, ref))) throw versionNotFound(ref);
  const a = await startTestRun(ctx, typeId, { version: input.a, runs: input.runs, scenarioIds: input.scenarioIds });
  const b = await startTestRun(ctx, typeId, { version: input.b, runs: input.runs, scenarioIds: input.scenarioIds });
  return { a: a.id, b: b.id };
}

type Side = { passRate: number; passed: boolean; runs: number } | null;
const side = (s: ScenarioReport | undefined): Side => (s ? { passRate: s.passRate, passed: s.passed, runs: s.runs.length } : null);

/**
 * Two runs of one type side by side: per scenario (matched by name) and per criterion (matched by its
 * definition) the pass rate of each. Any two runs of a type compare, not only those started together.
 */
export async function compareTestRuns(ctx: AppContext, aId: number, bId: number) {
  const [a, b] = [await getTestRun(ctx, aId), await getTestRun(ctx, bId)];
  if (a.conversationTypeId !== b.conversationTypeId) {
    throw badRequest('These two test runs belong to different conversation types; compare runs of the same type.', 'VALIDATION_ERROR');
  }
  const [ra, rb] = [a.report as TestReport | null, b.report as TestReport | null];
  const summary = ({ report: _r, conversationTypeId: _t, ...run }: typeof a) => run;
  const done = ra !== null && rb !== null;
  return { conversationTypeId: a.conversationTypeId, a: summary(a), b: summary(b), done, scenarios: done ? compareReports(ra, rb) : [] };
}

function compareReports(a: TestReport, b: TestReport) {
  const names = [...new Set([...a.scenarios.map((s) => s.name), ...b.scenarios.map((s) => s.name)])];
  return names.map((name) => {
    const [sa, sb] = [a.scenarios.find((s) => s.name === name), b.scenarios.find((s) => s.name === name)];
    const criteria = new Map<string, { criterion: Record<string, unknown>; a: number | null; b: number | null }>();
    for (const [key, s] of [['a', sa], ['b', sb]] as const) {
      for (const c of s?.criteria ?? []) {
        const id = canonical(c.criterion);
        const entry = criteria.get(id) ?? { criterion: c.criterion as Record<string, unknown>, a: null, b: null };
        entry[key] = c.passRate;
        criteria.set(id, entry);
      }
    }
    return { name, a: side(sa), b: side(sb), criteria: [...criteria.values()] };
  });
}
