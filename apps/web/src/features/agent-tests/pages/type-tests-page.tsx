import { Alert, Anchor, Badge, Button, Card, Code, Group, Loader, NumberInput, Progress, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import {
  agentTestKeys,
  comparisonQuery,
  type Criterion,
  diffQuery,
  type FieldDiff,
  publishStatusQuery,
  type RunResult,
  scenariosQuery,
  testRunQuery,
  useDeleteScenario,
  usePublishVersion,
  useRestoreVersion,
  useSaveScenario,
  useStartComparison,
  useStartRun,
  versionsQuery,
} from '../api/agent-tests.ts';
import { SimpleTable } from '../../../components/simple-table.tsx';

const pct = (n: number) => `${Math.round(n * 100)} %`;
const DEFAULT_CRITERIA = '[{ "kind": "ended" }]';

/** Issue 25: a type's versions (publish, diff, restore), its test scenarios and sandbox runs. */
export default function TypeTestsPage() {
  const { id = '' } = useParams();
  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <PageTitle>{`Tests and versions of conversation type #${id}`}</PageTitle>
        <Anchor component={Link} to={paths.admin.conversationTypeEdit(id)}>
          Back to the conversation type
        </Anchor>
      </Group>
      <ScenariosCard typeId={id} />
      <RunCard typeId={id} />
      <CompareCard typeId={id} />
      <VersionsCard typeId={id} />
    </Stack>
  );
}

function ScenariosCard({ typeId }: { typeId: string }) {
  const scenarios = useQuery(scenariosQuery(typeId));
  const save = useSaveScenario(typeId);
  const remove = useDeleteScenario(typeId);
  const [name, setName] = useState('');
  const [opening, setOpening] = useState('');
  const [messages, setMessages] = useState('');
  const [persona, setPersona] = useState('');
  const [criteria, setCriteria] = useState(DEFAULT_CRITERIA);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = () => {
    let parsed: Criterion[];
    try {
      parsed = JSON.parse(criteria) as Criterion[];
      if (!Array.isArray(parsed)) throw new Error('Criteria must be a JSON array.');
    } catch (err) {
      setProblem(`Criteria: ${errorMessage(err)}`);
      return;
    }
    setProblem(null);
    const lines = messages.split('\n').map((l) => l.trim()).filter(Boolean);
    save.mutate(
      { name, opening, criteria: parsed, ...(persona.trim() ? { persona: persona.trim() } : { messages: lines }) },
      { onSuccess: () => (setName(''), setOpening(''), setMessages(''), setPersona(''), setCriteria(DEFAULT_CRITERIA)) },
    );
  };

  return (
    <Card withBorder>
      <Title order={3} mb="sm">
        Scenarios
      </Title>
      {scenarios.isPending && <Loader aria-label="Loading scenarios" />}
      {scenarios.data?.length === 0 && <Text c="dimmed">No scenarios yet.</Text>}
      {scenarios.data && scenarios.data.length > 0 && (
        <SimpleTable mb="md" columns={['Name', 'Prospect', 'Criteria', '']}>
          {scenarios.data.map((s) => (
            <Table.Tr key={s.id}>
              <Table.Td>{s.name}</Table.Td>
              <Table.Td>{s.persona ? 'LLM persona' : `${(s.messages?.length ?? 0) + 1} scripted messages`}</Table.Td>
              <Table.Td>{s.criteria.map((c) => c.kind).join(', ')}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(s.id)}>
                  Delete
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      )}
      <Stack gap="xs">
        <Text fw={600}>New scenario</Text>
        <TextInput label="Scenario name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <TextInput label="Opening message" value={opening} onChange={(e) => setOpening(e.currentTarget.value)} />
        <Textarea label="Scripted prospect messages (one per line)" autosize minRows={2} value={messages} onChange={(e) => setMessages(e.currentTarget.value)} />
        <Textarea
          label="Or a persona (played by the LLM)"
          description="e.g. price-sensitive, asks for a discount twice, books if offered a demo on Friday"
          autosize
          minRows={1}
          value={persona}
          onChange={(e) => setPersona(e.currentTarget.value)}
        />
        <Textarea
          label="Criteria (JSON)"
          description='reachesPhase {phase}, ended, booked, handedToHuman {expected}, usedTool {name}, neverSays {text}, fieldFilled {key, pattern?}, maxLength {max}, judge {rubric}'
          autosize
          minRows={2}
          value={criteria}
          onChange={(e) => setCriteria(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'monospace' } }}
        />
        {problem && <Alert color="red">{problem}</Alert>}
        <Group>
          <Button onClick={submit} loading={save.isPending}>
            Save scenario
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** The draft and every published version, as choices of a version picker. */
function useVersionOptions(typeId: string) {
  const versions = useQuery(versionsQuery(typeId));
  return [{ value: 'draft', label: 'Draft' }, ...(versions.data?.versions ?? []).map((v) => ({ value: String(v.version), label: `Version ${v.version}` }))];
}
const versionRef = (value: string) => (value === 'draft' ? 'draft' : Number(value));
const versionLabel = (version: string) => (version === 'draft' ? 'the draft' : `version ${version}`);

const RunsInput = ({ value, onChange }: { value: number; onChange: (runs: number) => void }) => (
  <NumberInput label="Runs per scenario" min={1} max={20} value={value} onChange={(v) => onChange(Number(v) || 1)} w={160} />
);

function RunCard({ typeId }: { typeId: string }) {
  const options = useVersionOptions(typeId);
  const start = useStartRun(typeId);
  const [version, setVersion] = useState('draft');
  const [runs, setRuns] = useState<number>(1);
  const [runId, setRunId] = useState<number | null>(null);
  return (
    <Card withBorder>
      <Title order={3} mb="sm">
        Run the scenarios
      </Title>
      <Group align="flex-end">
        <Select label="Version" data={options} value={version} onChange={(v) => setVersion(v ?? 'draft')} allowDeselect={false} w={160} />
        <RunsInput value={runs} onChange={setRuns} />
        <Button
          loading={start.isPending}
          onClick={() => start.mutate({ version: versionRef(version), runs }, { onSuccess: (r) => setRunId(r.id) })}
        >
          Run scenarios
        </Button>
      </Group>
      {runId !== null && <RunReport typeId={typeId} runId={runId} />}
    </Card>
  );
}

function RunReport({ typeId, runId }: { typeId: string; runId: number }) {
  const run = useQuery(testRunQuery(runId));
  const client = useQueryClient();
  const done = run.data?.status === 'done';
  useEffect(() => {
    if (done) void client.invalidateQueries({ queryKey: agentTestKeys.publishStatus(typeId) });
  }, [done, client, typeId]);
  if (run.isError) return <Alert color="red">{errorMessage(run.error)}</Alert>;
  if (!run.data) return <Loader aria-label="Loading the run" />;
  const { report } = run.data;
  return (
    <Stack mt="md" gap="sm" aria-label="Test run report">
      {!report && (
        <>
          <Text>
            Running: {run.data.finished} / {run.data.total} runs finished
          </Text>
          <Progress value={run.data.total ? (run.data.finished / run.data.total) * 100 : 0} aria-label="Run progress" />
        </>
      )}
      {report && (
        <>
          <Group>
            <Badge color={report.passed ? 'green' : 'red'} size="lg">
              {report.passed ? 'Passed' : 'Failed'}
            </Badge>
            <Text>
              Pass rate {pct(report.passRate)} ({report.passedRuns} of {report.runs} runs) on {versionLabel(report.version)} · tokens{' '}
              {report.tokens.prompt + report.tokens.completion} · ${report.costUsd.toFixed(4)} · {(report.durationMs / 1000).toFixed(1)} s
            </Text>
          </Group>
          {report.scenarios.map((s) => (
            <Card key={s.name} withBorder>
              <Group mb="xs">
                <Badge color={s.passed ? 'green' : 'red'}>{s.passed ? 'pass' : 'fail'}</Badge>
                <Text fw={600}>{s.name}</Text>
                <Text c="dimmed">{pct(s.passRate)} of runs</Text>
              </Group>
              <Text size="sm">{s.criteria.map((c) => `${describe(c.criterion)}: ${pct(c.passRate)}`).join(' · ')}</Text>
              {s.runs.map((r, i) => (
                <RunTranscript key={i} run={r} index={i} />
              ))}
            </Card>
          ))}
        </>
      )}
    </Stack>
  );
}

/** Side by side (issue 25): the same scenarios on two versions, per scenario and criterion, transcripts a click away. */
function CompareCard({ typeId }: { typeId: string }) {
  const options = useVersionOptions(typeId);
  const start = useStartComparison(typeId);
  const [a, setA] = useState<string | null>(null);
  const [b, setB] = useState('draft');
  const [runs, setRuns] = useState<number>(1);
  const [ids, setIds] = useState<{ a: number; b: number } | null>(null);
  return (
    <Card withBorder>
      <Title order={3} mb="sm">
        Compare two versions
      </Title>
      <Group align="flex-end">
        <Select label="Version A" data={options} value={a} onChange={setA} placeholder="Pick a version" w={160} />
        <Select label="Version B" data={options} value={b} onChange={(v) => setB(v ?? 'draft')} allowDeselect={false} w={160} />
        <RunsInput value={runs} onChange={setRuns} />
        <Button
          disabled={a === null || a === b}
          loading={start.isPending}
          onClick={() => a !== null && start.mutate({ a: versionRef(a), b: versionRef(b), runs }, { onSuccess: setIds })}
        >
          Run both and compare
        </Button>
      </Group>
      {ids && <ComparisonView typeId={typeId} a={ids.a} b={ids.b} />}
    </Card>
  );
}

const rateCell = (rate: number | null, other: number | null) => (
  <Table.Td c={rate === null ? 'dimmed' : rate === 1 ? 'green' : 'red'} fw={other !== null && rate !== other ? 700 : undefined} data-changed={other !== null && rate !== null && rate !== other ? 'true' : undefined}>
    {rate === null ? 'not run' : pct(rate)}
  </Table.Td>
);

function ComparisonView({ typeId, a, b }: { typeId: string; a: number; b: number }) {
  const comparison = useQuery(comparisonQuery(a, b));
  const [shown, setShown] = useState<number | null>(null);
  if (comparison.isError) return <Alert color="red">{errorMessage(comparison.error)}</Alert>;
  if (!comparison.data) return <Loader aria-label="Loading the comparison" />;
  const { a: runA, b: runB, done, scenarios } = comparison.data;
  const head = (run: typeof runA, side: string) => `${side}: ${versionLabel(run.version)}`;
  return (
    <Stack mt="md" gap="sm" aria-label="Version comparison">
      {!done && (
        <Text>
          Running: {runA.finished + runB.finished} / {runA.total + runB.total} runs finished
        </Text>
      )}
      {done && (
        <Table withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Scenario / criterion</Table.Th>
              <Table.Th>{head(runA, 'A')}</Table.Th>
              <Table.Th>{head(runB, 'B')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td fw={700}>All scenarios</Table.Td>
              {rateCell(runA.passRate, runB.passRate)}
              {rateCell(runB.passRate, runA.passRate)}
            </Table.Tr>
            {scenarios.flatMap((s) => [
              <Table.Tr key={s.name} bg="var(--mantine-color-gray-0)">
                <Table.Td fw={600}>{s.name}</Table.Td>
                {rateCell(s.a?.passRate ?? null, s.b?.passRate ?? null)}
                {rateCell(s.b?.passRate ?? null, s.a?.passRate ?? null)}
              </Table.Tr>,
              ...s.criteria.map((c, i) => (
                <Table.Tr key={`${s.name}-${i}`}>
                  <Table.Td pl="xl">{describe(c.criterion)}</Table.Td>
                  {rateCell(c.a, c.b)}
                  {rateCell(c.b, c.a)}
                </Table.Tr>
              )),
            ])}
          </Table.Tbody>
        </Table>
      )}
      {done && (
        <Group>
          {[runA, runB].map((run, i) => (
            <Button key={run.id} size="xs" variant={shown === run.id ? 'filled' : 'light'} onClick={() => setShown(shown === run.id ? null : run.id)}>
              {shown === run.id ? 'Hide' : 'Show'} transcripts of {i === 0 ? 'A' : 'B'} ({versionLabel(run.version)})
            </Button>
          ))}
        </Group>
      )}
      {shown !== null && <RunReport typeId={typeId} runId={shown} />}
    </Stack>
  );
}

function describe(c: Criterion): string {
  const rest = Object.entries(c).filter(([k]) => k !== 'kind').map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return rest.length ? `${c.kind} (${rest.join(', ')})` : c.kind;
}

function RunTranscript({ run, index }: { run: RunResult; index: number }) {
  return (
    <Stack gap={4} mt="sm" aria-label={`Run ${index + 1}`}>
      <Text size="sm" fw={600}>
        Run {index + 1}: {run.passed ? 'passed' : 'failed'} · {run.turns} turns · {run.outcome}
        {run.error ? ` · error: ${run.error}` : ''}
      </Text>
      {run.criteria.map((v, i) => (
        <Text key={i} size="sm" c={v.passed ? 'green' : 'red'} fw={v.passed ? undefined : 700} data-failing={v.passed ? undefined : 'true'}>
          {v.passed ? '✓' : '✗'} {describe(v.criterion)} — {v.reason}
        </Text>
      ))}
      <Stack gap={2} pl="md">
        {run.transcript.map((line, i) => (
          <Text key={i} size="sm" c={line.role === 'SYSTEM' ? 'dimmed' : undefined}>
            <b>{line.role === 'PROSPECT' ? 'Prospect' : line.role === 'AGENT' ? 'Agent' : 'Note'}:</b> {line.text}
          </Text>
        ))}
      </Stack>
    </Stack>
  );
}

function VersionsCard({ typeId }: { typeId: string }) {
  const versions = useQuery(versionsQuery(typeId));
  const options = useVersionOptions(typeId);
  const status = useQuery(publishStatusQuery(typeId));
  const publish = usePublishVersion(typeId);
  const restore = useRestoreVersion(typeId);
  const [note, setNote] = useState('');
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string>('draft');
  return (
    <Card withBorder>
      <Title order={3} mb="sm">
        Versions
      </Title>
      <Text mb="xs">
        {versions.data?.current ? `New conversations start on version ${versions.data.current}.` : 'Never published: conversations run on the draft.'}
      </Text>
      {status.data && (
        <Text mb="xs" size="sm" aria-label="Publish status">
          {status.data.requiredPassRate === null ? 'Publishing does not require tests' : `Publishing requires a pass rate of ${pct(status.data.requiredPassRate)} on the draft`};
          last run on this draft as it is now: {status.data.lastRun ? `${pct(status.data.lastRun.passRate)} (run #${status.data.lastRun.id})` : 'none'}.
        </Text>
      )}
      <Group align="flex-end" mb="md">
        <TextInput label="Version note" value={note} onChange={(e) => setNote(e.currentTarget.value)} w={320} />
        <Button onClick={() => publish.mutate(note, { onSuccess: () => setNote('') })} loading={publish.isPending} disabled={status.data ? !status.data.allowed : false}>
          Publish draft
        </Button>
      </Group>
      {versions.data && versions.data.versions.length > 0 && (
        <SimpleTable mb="md" columns={['Version', 'Note', 'Published', '']}>
          {versions.data.versions.map((v) => (
            <Table.Tr key={v.version}>
              <Table.Td>{v.version}</Table.Td>
              <Table.Td>{v.note ?? ''}</Table.Td>
              <Table.Td>
                {new Date(v.createdAt).toLocaleString()} {v.createdBy ? `by ${v.createdBy}` : ''}
              </Table.Td>
              <Table.Td>
                <Button size="xs" variant="light" onClick={() => restore.mutate(v.version)}>
                  Restore as draft
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      )}
      {options.length > 1 && (
        <Group align="flex-end">
          <Select label="Compare" data={options} value={from} onChange={setFrom} placeholder="Pick a version" w={160} />
          <Select label="with" data={options} value={to} onChange={(v) => setTo(v ?? 'draft')} allowDeselect={false} w={160} />
        </Group>
      )}
      {from && <DiffView typeId={typeId} from={from} to={to} />}
    </Card>
  );
}

function DiffView({ typeId, from, to }: { typeId: string; from: string; to: string }) {
  const diff = useQuery(diffQuery(typeId, from, to));
  if (diff.isPending) return <Loader aria-label="Loading the diff" />;
  if (diff.isError) return <Alert color="red">{errorMessage(diff.error)}</Alert>;
  const fields: { label: string; diff: FieldDiff }[] = [
    ...diff.data.prompts.filter((p) => p.changed).map((p) => ({ label: p.field, diff: p })),
    ...diff.data.phases.flatMap((phase) => phase.fields.filter((f) => f.changed).map((f) => ({ label: `Phase ${phase.index} ${f.field} (${phase.status})`, diff: f }))),
  ];
  const nothing = fields.length === 0 && diff.data.config.length === 0 && !diff.data.knowledge.added.length && !diff.data.knowledge.removed.length;
  return (
    <Stack mt="sm" gap="xs" aria-label="Version diff">
      {nothing && <Text c="dimmed">No differences.</Text>}
      {fields.map(({ label, diff: d }) => (
        <div key={label}>
          <Text fw={600} size="sm">
            {label}
          </Text>
          <Code block>
            {d.lines.map((l, i) => (
              <div key={i} style={{ color: l.op === '+' ? 'var(--mantine-color-green-8)' : l.op === '-' ? 'var(--mantine-color-red-8)' : undefined }}>
                {l.op} {l.text}
              </div>
            ))}
          </Code>
        </div>
      ))}
      {diff.data.config.length > 0 && (
        <div>
          <Text fw={600} size="sm">
            Config
          </Text>
          {diff.data.config.map((c) => (
            <Text key={c.key} size="sm">
              <Code>{c.key}</Code>: {c.before ?? '(none)'} → {c.after ?? '(none)'}
            </Text>
          ))}
        </div>
      )}
      {(diff.data.knowledge.added.length > 0 || diff.data.knowledge.removed.length > 0) && (
        <Text size="sm">
          Knowledge collections added: {diff.data.knowledge.added.join(', ') || 'none'}; removed: {diff.data.knowledge.removed.join(', ') || 'none'}
        </Text>
      )}
    </Stack>
  );
}
