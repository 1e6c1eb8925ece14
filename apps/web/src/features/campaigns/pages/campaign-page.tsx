import { Anchor, Button, Card, Group, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { type CampaignAction, campaignExportUrl, campaignQuery, type CampaignDetail, useCampaignAction } from '../api/campaigns.ts';
import { CampaignStatusBadge } from './campaign-status.tsx';

type Contact = CampaignDetail['contacts'][number];

/** Issue 23 item 4: one campaign's live progress per contact, its controls, its audit, and the results CSV. */
export default function CampaignPage() {
  const id = Number(useParams().id);
  const campaign = useQuery(campaignQuery(id));
  return (
    <QueryState query={campaign} title="Campaign">
      {(c) => <CampaignView campaign={c} />}
    </QueryState>
  );
}

function CampaignView({ campaign: c }: { campaign: CampaignDetail }) {
  const action = useCampaignAction();
  const run = (a: CampaignAction) => action.mutate({ id: c.id, action: a });
  const finished = c.counts.total - c.counts.queued - c.counts.calling;
  const figures: [string, number][] = [
    ['Queued', c.counts.queued],
    ['In progress', c.counts.calling],
    ['Answered', c.counts.answered],
    ['Sent', c.counts.sent],
    ['Booked', c.counts.booked],
    ['Voicemail', c.counts.voicemail],
    ['No answer / busy', c.counts.noAnswer + c.counts.busy],
    ['Failed', c.counts.failed - c.counts.noAnswer - c.counts.busy],
    ['Opted out', c.counts.optedOut],
  ];
  return (
    <Stack>
      <Group justify="space-between">
        <PageTitle>{c.name}</PageTitle>
        <CampaignStatusBadge status={c.status} />
      </Group>
      <Text c="dimmed">
        {c.channel === 'call' ? 'Phone calls' : c.channel === 'sms' ? 'SMS' : 'WhatsApp'}, {c.callsPerMinute} per minute
        {c.channel === 'call' ? `, at most ${c.maxConcurrent} at once` : ''}
        {c.window ? `, between ${c.window.start} and ${c.window.end} in each person's local time` : ''}
        {c.channel === 'call' ? retriesInWords(c) : ''}.
        {c.startAt ? ` Starts at ${new Date(c.startAt).toLocaleString()}.` : ''}
        {c.audience ? ` Contacts from the GoHighLevel stage ${c.audience.ghlPipelineStageId}.` : ''}
        {c.whatsappTemplate ? ` Opens with the WhatsApp template ${c.whatsappTemplate.name} (${c.whatsappTemplate.language}).` : ''}
      </Text>
      {c.channel === 'call' && c.voicemailMessage && <Text size="sm">Voicemail message: “{c.voicemailMessage}”</Text>}
      <Group>
        {(c.status === 'draft' || c.status === 'paused') && (
          <Button onClick={() => run('start')} loading={action.isPending}>
            {c.status === 'draft' ? 'Start' : 'Resume'}
          </Button>
        )}
        {c.status === 'running' && (
          <Button variant="default" onClick={() => run('pause')} loading={action.isPending}>
            Pause
          </Button>
        )}
        {(c.status === 'draft' || c.status === 'running' || c.status === 'paused') && (
          <Button color="red" variant="light" onClick={() => run('stop')} loading={action.isPending}>
            Stop
          </Button>
        )}
        <Button component="a" href={campaignExportUrl(c.id)} download variant="default">
          Export results (CSV)
        </Button>
        <Anchor component={Link} to={paths.admin.campaigns}>
          All campaigns
        </Anchor>
      </Group>
      <Card withBorder>
        <Text size="sm" mb={4} data-testid="campaign-progress">
          {finished} of {c.counts.total} contacts finished
        </Text>
        <Progress value={c.counts.total ? (finished / c.counts.total) * 100 : 0} aria-label="Campaign progress" />
        <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} mt="sm">
          {figures.map(([label, n]) => (
            <div key={label}>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
              <Text fw={600}>{n}</Text>
            </div>
          ))}
        </SimpleGrid>
      </Card>
      <RecordTable<Contact>
        aria-label="Contacts"
        pinLastColumn={false}
        idAccessor="phone"
        records={c.contacts}
        columns={[
          { accessor: 'phone', title: 'Phone' },
          { accessor: 'name', title: 'Name', render: (r) => r.name ?? '' },
          { accessor: 'status', title: 'Status', render: (r) => <CampaignStatusBadge status={r.status} /> },
          { accessor: 'attempts', title: 'Attempts' },
          {
            accessor: 'conversationUuid',
            title: 'Conversation',
            render: (r) =>
              r.conversationUuid ? (
                <Anchor component={Link} to={paths.conversation(r.conversationUuid)}>
                  Open
                </Anchor>
              ) : (
                ''
              ),
          },
          { accessor: 'detail', title: 'Note', render: (r) => r.detail ?? '' },
        ]}
      />
      <Text size="sm" c="dimmed" data-testid="campaign-audit">
        {c.events.map((e) => `${e.kind} ${new Date(e.at).toLocaleString()}${e.by ? ` by ${e.by}` : ''}`).join(' · ')}
      </Text>
    </Stack>
  );
}

/** "; tried again after no answer (1×), busy (1×), voicemail (2×), 60 min later" — or nothing without retries. */
export function retriesInWords(c: Pick<CampaignDetail, 'retryPolicy'>): string {
  const p = c.retryPolicy;
  const parts = [
    ['no answer', p.noAnswer],
    ['busy', p.busy],
    ['voicemail', p.voicemail],
  ].filter(([, n]) => Number(n) > 0);
  if (parts.length === 0) return '';
  return `; tried again after ${parts.map(([what, n]) => `${what} (${n}×)`).join(', ')}, ${p.delayMinutes} min later`;
}
