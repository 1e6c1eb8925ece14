import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** Issue 25: playbook versions, test scenarios and runs of one conversation type (docs/agent-tests.md). */
export const agentTestKeys = {
  all: (typeId: string) => ['agent-tests', typeId] as const,
  versions: (typeId: string) => ['agent-tests', typeId, 'versions'] as const,
  diff: (typeId: string, from: string, to: string) => ['agent-tests', typeId, 'diff', from, to] as const,
  scenarios: (typeId: string) => ['agent-tests', typeId, 'scenarios'] as const,
  publishStatus: (typeId: string) => ['agent-tests', typeId, 'publish-status'] as const,
  run: (runId: number) => ['agent-test-run', runId] as const,
  comparison: (a: number, b: number) => ['agent-test-run', a, 'compare', b] as const,
};

export interface VersionList {
  current: number | null;
  versions: { version: number; note: string | null; createdAt: string; createdBy: string | null }[];
}
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}
export interface FieldDiff {
  field: string;
  changed: boolean;
  lines: DiffLine[];
}
export interface VersionDiff {
  prompts: FieldDiff[];
  phases: { index: number; status: string; fields: FieldDiff[] }[];
  config: { key: string; before: string | null; after: string | null }[];
  knowledge: { added: number[]; removed: number[] };
}
export interface Criterion {
  kind: string;
  [key: string]: unknown;
}
export interface Scenario {
  id: number;
  name: string;
  opening: string;
  messages?: string[];
  persona?: string;
  maxTurns?: number;
  criteria: Criterion[];
}
export interface RunResult {
  scenario: string;
  passed: boolean;
  criteria: { criterion: Criterion; passed: boolean; reason: string }[];
  transcript: { role: 'PROSPECT' | 'AGENT' | 'SYSTEM'; text: string; phase: number }[];
  turns: number;
  outcome: string;
  tokens: { prompt: number; completion: number };
  costUsd: number;
  error: string | null;
}
export interface TestReport {
  version: string;
  runs: number;
  passedRuns: number;
  passRate: number;
  minPassRate: number | null;
  passed: boolean;
  scenarios: { name: string; passed: boolean; passRate: number; criteria: { criterion: Criterion; passRate: number }[]; runs: RunResult[] }[];
  tokens: { prompt: number; completion: number };
  costUsd: number;
  durationMs: number;
}
/** A batch's progress; `TestRun` adds its report once done. */
export interface RunSummary {
  id: number;
  version: string;
  status: string;
  total: number;
  finished: number;
  passRate: number | null;
}
export interface TestRun extends RunSummary {
  report: TestReport | null;
}
export interface PublishStatus {
  requiredPassRate: number | null;
  lastRun: { id: number; passRate: number } | null;
  allowed: boolean;
}

type SidePass = { passRate: number; passed: boolean; runs: number } | null;
/** Two runs side by side: per scenario and criterion the pass rate of each (null: that side did not run it). */
export interface RunComparison {
  a: RunSummary;
  b: RunSummary;
  done: boolean;
  scenarios: { name: string; a: SidePass; b: SidePass; criteria: { criterion: Criterion; a: number | null; b: number | null }[] }[];
}

const base = (typeId: string) => `/api/admin/conversation-type/${typeId}`;

export const versionsQuery = (typeId: string) =>
  queryOptions({ queryKey: agentTestKeys.versions(typeId), queryFn: () => api.get<VersionList>(`${base(typeId)}/versions`) });
export const diffQuery = (typeId: string, from: string, to: string) =>
  queryOptions({ queryKey: agentTestKeys.diff(typeId, from, to), queryFn: () => api.get<VersionDiff>(`${base(typeId)}/versions/diff`, { from, to }) });
export const scenariosQuery = (typeId: string) =>
  queryOptions({ queryKey: agentTestKeys.scenarios(typeId), queryFn: () => api.get<Scenario[]>(`${base(typeId)}/scenarios`) });
export const publishStatusQuery = (typeId: string) =>
  queryOptions({ queryKey: agentTestKeys.publishStatus(typeId), queryFn: () => api.get<PublishStatus>(`${base(typeId)}/publish-status`) });
/** A run's progress, polled every second until it is done (live progress). */
export const testRunQuery = (runId: number) =>
  queryOptions({
    queryKey: agentTestKeys.run(runId),
    queryFn: () => api.get<TestRun>(`/api/admin/test-run/${runId}`),
    refetchInterval: (query) => (query.state.data?.status === 'running' || !query.state.data ? 1000 : false),
  });

/** Two runs compared, polled every second until both are done. */
export const comparisonQuery = (a: number, b: number) =>
  queryOptions({
    queryKey: agentTestKeys.comparison(a, b),
    queryFn: () => api.get<RunComparison>(`/api/admin/test-run/${a}/compare/${b}`),
    refetchInterval: (query) => (query.state.data?.done ? false : 1000),
  });

export const usePublishVersion = (typeId: string) =>
  useWrite({
    write: (note: string) => api.post<{ version: number }>(`${base(typeId)}/versions/publish`, { note: note || null }),
    refreshes: () => [agentTestKeys.all(typeId)],
    notice: 'Draft published',
  });
export const useRestoreVersion = (typeId: string) =>
  useWrite({
    write: (version: number) => api.post<{ message: string }>(`${base(typeId)}/versions/${version}/restore`),
    refreshes: () => [agentTestKeys.all(typeId), ['conversation-types']],
  });
export const useSaveScenario = (typeId: string) =>
  useWrite({
    write: (scenario: Omit<Scenario, 'id'>) => api.post<Scenario>(`${base(typeId)}/scenarios`, scenario),
    refreshes: () => [agentTestKeys.scenarios(typeId)],
    notice: 'Scenario saved',
  });
export const useDeleteScenario = (typeId: string) =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`${base(typeId)}/scenarios/${id}`),
    refreshes: () => [agentTestKeys.scenarios(typeId)],
  });
export const useStartRun = (typeId: string) =>
  useWrite({
    write: (body: { version: string | number; runs: number }) => api.post<{ id: number }>(`${base(typeId)}/test-runs`, body),
    refreshes: () => [],
    notice: 'Test run started',
  });
export const useStartComparison = (typeId: string) =>
  useWrite({
    write: (body: { a: string | number; b: string | number; runs: number }) => api.post<{ a: number; b: number }>(`${base(typeId)}/test-comparisons`, body),
    refreshes: () => [],
    notice: 'Comparison started',
  });
