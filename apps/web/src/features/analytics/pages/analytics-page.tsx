import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Button, Card, Group, Loader, NativeSelect, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { ANALYTICS_CHANNELS } from '@sales-agent/shared/schemas/analytics';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth.ts';
import { conversationTypesQuery } from '../../conversation-types/api/conversation-types.ts';
import { messagingAccountsQuery } from '../../messaging-accounts/api/messaging-accounts.ts';
import { type AnalyticsFilters, funnelQuery, speedQuery, stepConversationsQuery } from '../api/analytics.ts';
import { AbTestSection } from '../components/ab-test-section.tsx';
import { FigureState } from '../components/figure-section.tsx';
import { FigureTable } from '../components/figure-table.tsx';
import { CostSection } from '../components/cost-section.tsx';
import { OutcomesSection } from '../components/outcomes-section.tsx';
import { VoiceSection } from '../components/voice-section.tsx';
import { downloadCsv, type FunnelRow, funnelRows, toCsv } from '../components/funnel-rows.ts';

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Issue 26: the funnel by phase and the first-reply speed of one conversation type; filters in the query string. */
export default function AnalyticsPage() {
  const [search, setSearch] = useSearchParams();
  const filters: AnalyticsFilters = {
    conversationType: search.get('conversationType') ?? '',
    from: search.get('from') ?? day(new Date(Date.now() - 29 * 86_400_000)),
    to: search.get('to') ?? day(new Date()),
    channel: search.get('channel') ?? '',
    messagingAccount: search.get('messagingAccount') ?? '',
  };
  const set = (key: keyof AnalyticsFilters, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'from' && !next.get('from')) next.set('from', filters.from);
    if (key !== 'to' && !next.get('to')) next.set('to', filters.to);
    setSearch(next, { replace: true });
  };
  const isAdmin = useAuth().role === 'ADMIN';
  const types = useQuery(conversationTypesQuery());
  // The account list is an ADMIN route; a NORMAL user's figures are already limited to the granted accounts.
  const accounts = useQuery({ ...messagingAccountsQuery(), enabled: isAdmin });
  const funnel = useQuery(funnelQuery(filters));
  const speed = useQuery(speedQuery(filters));

  return (
    <Stack>
      <PageTitle>Analytics</PageTitle>
      <Card withBorder padding="sm">
        <Group align="flex-end">
          <NativeSelect
            label="Conversation type"
            value={filters.conversationType}
            onChange={(e) => set('conversationType', e.currentTarget.value)}
            data={[{ value: '', label: 'Choose a type…' }, ...(types.data ?? []).map((t) => ({ value: String(t.id), label: t.title ?? t.label }))]}
          />
          <TextInput type="date" label="From" value={filters.from} onChange={(e) => set('from', e.currentTarget.value)} />
          <TextInput type="date" label="To" value={filters.to} onChange={(e) => set('to', e.currentTarget.value)} />
          <NativeSelect
            label="Channel"
            value={filters.channel}
            onChange={(e) => set('channel', e.currentTarget.value)}
            data={[{ value: '', label: 'All channels' }, ...ANALYTICS_CHANNELS.map((c) => ({ value: c, label: c }))]}
          />
          {isAdmin && (
            <NativeSelect
              label="Messaging account"
              value={filters.messagingAccount}
              onChange={(e) => set('messagingAccount', e.currentTarget.value)}
              data={[
                { value: '', label: 'All accounts' },
                ...(accounts.data ?? []).map((a) => ({ value: String(a.id), label: `${a.pageName ?? a.pageId ?? `Account ${a.id}`} (${a.type})` })),
              ]}
            />
          )}
        </Group>
      </Card>
      {filters.conversationType === '' ? (
        <Text c="dimmed">Choose a conversation type to see its funnel.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          <Card withBorder>
            {funnel.isPending ? <Loader /> : funnel.isError ? <Alert color="red" role="alert">{errorMessage(funnel.error)}</Alert> : <Funnel filters={filters} rows={funnelRows(funnel.data)} />}
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Speed to first reply
            </Title>
            {speed.isPending ? (
              <Loader />
            ) : speed.isError ? (
              <Alert color="red" role="alert">{errorMessage(speed.error)}</Alert>
            ) : (
              <FigureTable
                label="Speed to first reply"
                rows={[
                  ['First reply p50 / p90', seconds(speed.data.firstReplySeconds)],
                  ['By the AI p50 / p90', seconds(speed.data.agentFirstReplySeconds)],
                  ['By the team p50 / p90', seconds(speed.data.teamFirstReplySeconds)],
                  ['With a prospect message', String(speed.data.withProspectMessage)],
                  ['Replied', String(speed.data.replied)],
                  ['Answered within 1 minute', speed.data.answeredWithinMinuteShare === null ? '–' : `${Math.round(speed.data.answeredWithinMinuteShare * 1000) / 10} %`],
                ] as [string, string][]}
              />
            )}
          </Card>
          <Card withBorder>
            <VoiceSection filters={filters} />
          </Card>
          <Card withBorder style={{ gridColumn: '1 / -1' }}>
            <OutcomesSection filters={filters} />
          </Card>
          <Card withBorder style={{ gridColumn: '1 / -1' }}>
            <CostSection filters={filters} />
          </Card>
          <Card withBorder style={{ gridColumn: '1 / -1' }}>
            <AbTestSection filters={filters} />
          </Card>
        </SimpleGrid>
      )}
    </Stack>
  );
}

const seconds = (p: { p50: number | null; p90: number | null }) => (p.p50 === null ? '–' : `${p.p50} s / ${p.p90} s`);

function Funnel({ filters, rows }: { filters: AnalyticsFilters; rows: FunnelRow[] }) {
  const [view, setView] = useState('chart');
  const [step, setStep] = useState<FunnelRow | null>(null);
  const exportCsv = () =>
    downloadCsv(
      'funnel.csv',
      toCsv(['step', 'conversations', 'percent of started', 'drop-off'], rows.map((r) => [r.label, r.count, r.percent, r.dropOff])),
    );
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Funnel
        </Title>
        <Group gap="xs">
          <SegmentedControl size="xs" value={view} onChange={setView} data={[{ value: 'chart', label: 'Chart' }, { value: 'table', label: 'Table' }]} aria-label="Funnel view" />
          <Button size="xs" variant="default" leftSection={<IconDownload size={14} aria-hidden />} onClick={exportCsv}>
            Export CSV
          </Button>
        </Group>
      </Group>
      {view === 'chart' ? (
        <div role="img" aria-label="Funnel chart: conversations per step (the table below has the figures)">
          <BarChart h={240} data={rows} dataKey="label" series={[{ name: 'count', label: 'Conversations', color: 'indigo.6' }]} />
        </div>
      ) : null}
      <Table aria-label="Funnel steps" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Step</Table.Th>
            <Table.Th ta="right">Conversations</Table.Th>
            <Table.Th ta="right">% of started</Table.Th>
            <Table.Th ta="right">Drop-off</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.step}>
              <Table.Td>
                <Anchor component="button" type="button" onClick={() => setStep(r)}>
                  {r.label}
                </Anchor>
              </Table.Td>
              <Table.Td ta="right">{r.count}</Table.Td>
              <Table.Td ta="right">{r.percent === null ? '–' : `${r.percent} %`}</Table.Td>
              <Table.Td ta="right">{r.dropOff ?? ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {step && <StepConversations filters={filters} step={step} />}
    </Stack>
  );
}

function StepConversations({ filters, step }: { filters: AnalyticsFilters; step: FunnelRow }) {
  const list = useQuery(stepConversationsQuery(filters, step.step));
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        Conversations: {step.label}
      </Title>
      <FigureState query={list}>
        {(data) =>
          data.conversations.length === 0 ? (
            <Text c="dimmed">No conversations.</Text>
          ) : (
            <ul aria-label={`Conversations: ${step.label}`}>
              {data.conversations.map((c) => (
                <li key={c.id}>
                  <Anchor component={Link} to={paths.conversation(c.uuid, true)}>
                    #{c.id}
                  </Anchor>{' '}
                  <Text span size="sm" c="dimmed">
                    {new Date(c.createdAt).toLocaleString()} · phase {c.phase}
                  </Text>
                </li>
              ))}
            </ul>
          )
        }
      </FigureState>
    </Stack>
  );
}
