import type { Scenario } from '@sales-agent/shared/schemas/agent-tests';
import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { PlaybookSnapshot, VersionRef } from '../../conversations/playbook-versions.ts';
import { type RunResult, runScenario } from './sandbox-run.ts';

/** Runs of one batch played at the same time at most (each mostly waits on the LLM). */
export const TEST_RUN_CONCURRENCY = 64;

export interface ScenarioReport {
  name: string;
  passed: boolean;
  passRate: number;
  criteria: { criterion: RunResult['criteria'][number]['criterion']; passRate: number }[];
  runs: RunResult[];
}

/** The report of a batch: the `--json` document of `npm run agent:test` and the run screen's data. */
export interface TestReport {
  type: { id: number; title: string | null };
  version: string;
  snapshotHash: string;
  runsPerScenario: number;
  runs: number;
  passedRuns: number;
  passRate: number;
  minPassRate: number | null;
  passed: boolean;
  scenarios: ScenarioReport[];
  tokens: { prompt: number; completion: number };
  costUsd: number;
  durationMs: number;
}

/** A fingerprint of a playbook: a run on the draft counts for publishing only while the draft is unchanged. */
export function snapshotHash(snapshot: PlaybookSnapshot): string {
  return createHash('sha256').update(canonical(snapshot)).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted: jsonb stores keys in its own order, and the fingerprint must not care. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Plays every scenario `runs` times against the snapshot, up to TEST_RUN_CONCURRENCY at once, and builds the
 * report. `onRun` hears each finished run (live progress). Throws SandboxSetupError before any run when a
 * scenario cannot be played (a persona without an LLM).
 */
export async function runBatch(
  ctx: AppContext,
  input: {
    type: { id: number; title: string | null };
    version: VersionRef;
    snapshot: PlaybookSnapshot;
    scenarios: Scenario[];
    runs: number;
    minPassRate: number | null;
    onRun?: (result: RunResult, finished: number, total: number) => void | Promise<void>;
  },
): Promise<TestReport> {
  const started = performance.now();
  const jobs = input.scenarios.flatMap((scenario, s) => Array.from({ length: input.runs }, () => ({ scenario, s })));
  const results: RunResult[][] = input.scenarios.map(() => []);
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { scenario, s } = jobs[next++];
      const result = await runScenario(ctx, input.snapshot, scenario);
      results[s].push(result);
      finished += 1;
      await input.onRun?.(result, finished, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TEST_RUN_CONCURRENCY, jobs.length) }, worker));
  return buildReport(input, results, Math.round(performance.now() - started));
}

/** The report of finished runs (`results[s]`: the runs of scenario s), as the CLI and the run screen show it. */
export function buildReport(
  input: { type: { id: number; title: string | null }; version: VersionRef | string; snapshot: PlaybookSnapshot; scenarios: Scenario[]; runs: number; minPassRate: number | null },
  results: RunResult[][],
  durationMs: number,
): TestReport {
  const all = results.flat();
  const passedRuns = all.filter((r) => r.passed).length;
  const passRate = all.length ? passedRuns / all.length : 0;
  const scenarios = input.scenarios.map((scenario, s): ScenarioReport => {
    const runs = results[s] ?? [];
    return {
      name: scenario.name,
      passed: runs.every((r) => r.passed),
      passRate: runs.length ? runs.filter((r) => r.passed).length / runs.length : 0,
      criteria: scenario.criteria.map((criterion, c) => ({
        criterion,
        passRate: runs.length ? runs.filter((r) => r.criteria[c]?.passed).length / runs.length : 0,
      })),
      runs,
    };
  });
  return {
    type: input.type,
    version: String(input.version),
    snapshotHash: snapshotHash(input.snapshot),
    runsPerScenario: input.runs,
    runs: all.length,
    passedRuns,
    passRate,
    minPassRate: input.minPassRate,
    passed: all.length > 0 && passRate >= (input.minPassRate ?? 1),
    scenarios,
    tokens: { prompt: sum(all, (r) => r.tokens.prompt), completion: sum(all, (r) => r.tokens.completion) },
    costUsd: sum(all, (r) => r.costUsd),
    durationMs,
  };
}

const sum = <T>(items: T[], pick: (item: T) => number) => items.reduce((total, item) => total + pick(item), 0);

/** The report as text for a terminal: per scenario its verdict, failing criteria and their reasons. */
export function formatReport(report: TestReport): string {
  const pct = (n: number) => `${Math.round(n * 100)} %`;
  const lines = [`Agent tests: ${report.type.title ?? `type ${report.type.id}`} (id ${report.type.id}), version ${report.version}, ${report.runsPerScenario} run(s) per scenario`];
  for (const s of report.scenarios) {
    lines.push(`${s.passed ? 'PASS' : 'FAIL'}  ${s.name}  (${pct(s.passRate)} of ${s.runs.length} runs)`);
    for (const [i, run] of s.runs.entries()) {
      if (run.passed) continue;
      if (run.error) lines.push(`      run ${i + 1}: error: ${run.error}`);
      for (const v of run.criteria.filter((c) => !c.passed)) lines.push(`      run ${i + 1}: ✗ ${v.criterion.kind}: ${v.reason}`);
    }
  }
  const min = report.minPassRate ?? 1;
  lines.push(
    `Pass rate ${pct(report.passRate)} (${report.passedRuns}/${report.runs} runs), required ${pct(min)}: ${report.passed ? 'met' : 'NOT met'}. ` +
      `Tokens ${report.tokens.prompt + report.tokens.completion}, cost $${report.costUsd.toFixed(4)}, ${(report.durationMs / 1000).toFixed(1)} s.`,
  );
  return lines.join('\n');
}
