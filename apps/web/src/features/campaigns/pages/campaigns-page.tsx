import { Alert, Anchor, Button, Card, FileInput, Group, NumberInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { conversationTypeOptionsQuery } from '../../conversations/api/conversations.ts';
import { campaignsQuery, type CampaignSummary, useCreateCampaign } from '../api/campaigns.ts';
import { CampaignStatusBadge } from './campaign-status.tsx';

const CHANNELS = [
  { value: 'call', label: 'Phone call' },
  { value: 'sms', label: 'SMS' },
  { value: 'whatsapp', label: 'WhatsApp' },
];

/**
 * Issue 23 item 4: the campaigns (newest first, with progress) and a form to create one from a CSV of
 * numbers. Each opens on its own page with live progress per contact.
 */
export default function CampaignsPage() {
  const campaigns = useQuery(campaignsQuery());
  return (
    <>
      <PageTitle>Campaigns</PageTitle>
      <Text c="dimmed" mb="md">
        Call or message a list of people, paced and only inside your calling window in each person&apos;s local time (never 9 PM–8
        AM). Opted-out numbers are skipped, and no number is contacted twice.
      </Text>
      <CreateCampaign />
      <QueryState query={campaigns} title="Campaigns">
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed" mt="md">
              No campaigns yet.
            </Text>
          ) : (
            <RecordTable<CampaignSummary>
              aria-label="Campaigns"
              mt="md"
              pinLastColumn={false}
              records={list}
              columns={[
                { accessor: 'name', title: 'Name', render: (c) => <Anchor component={Link} to={paths.admin.campaign(c.id)}>{c.name}</Anchor> },
                { accessor: 'channel', title: 'Channel' },
                { accessor: 'status', title: 'Status', render: (c) => <CampaignStatusBadge status={c.status} /> },
                { accessor: 'progress', title: 'Progress', render: (c) => `${c.counts.total - c.counts.queued - c.counts.calling} of ${c.counts.total} finished` },
                { accessor: 'createdAt', title: 'Created', render: (c) => new Date(c.createdAt).toLocaleString() },
              ]}
            />
          )
        }
      </QueryState>
    </>
  );
}

function CreateCampaign() {
  const types = useQuery(conversationTypeOptionsQuery());
  const [name, setName] = useState('');
  const [typeId, setTypeId] = useState<string | null>(null);
  const [channel, setChannel] = useState<string | null>('call');
  const [file, setFile] = useState<File | null>(null);
  const [perMinute, setPerMinute] = useState<number | string>(10);
  const [start, setStart] = useState('09:00');
  const [end, setEnd] = useState('18:00');
  const [skipped, setSkipped] = useState<string[]>([]);
  const create = useCreateCampaign();
  const navigate = useNavigate();
  const ready = name.trim() !== '' && typeId !== null && channel !== null && file !== null && !create.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    const csv = await file.text();
    create.mutate(
      {
        name: name.trim(),
        conversationTypeId: Number(typeId),
        channel: channel as 'call' | 'sms' | 'whatsapp',
        csv,
        callsPerMinute: Number(perMinute) || 10,
        window: start && end ? { start, end } : null,
      },
      {
        onSuccess: (created) => {
          setSkipped(created.skipped.map((s) => `Row ${s.row} (${s.phone}): ${s.reason}`));
          if (created.skipped.length === 0) navigate(paths.admin.campaign(created.id));
        },
      },
    );
  };

  return (
    <Card withBorder>
      <form onSubmit={submit} noValidate aria-label="New campaign">
        <Stack>
          <Text fw={600}>New campaign</Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <Select
              label="Conversation type"
              placeholder="Choose a conversation type"
              required
              data={(types.data ?? []).map((t) => ({ value: String(t.id), label: truncate(t.label, TRUNCATE.typeSelectLabel) }))}
              value={typeId}
              onChange={setTypeId}
              allowDeselect={false}
              searchable
            />
            <Select label="Channel" required data={CHANNELS} value={channel} onChange={setChannel} allowDeselect={false} />
          </SimpleGrid>
          <FileInput
            label="Contacts (CSV)"
            description='A header row with "phone" (international format, e.g. +14155550123), optionally "name"; other columns become fields the agent sees.'
            placeholder="Choose a .csv file"
            accept=".csv,text/csv"
            required
            clearable
            value={file}
            onChange={setFile}
          />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NumberInput label="Contacts per minute" min={1} max={600} value={perMinute} onChange={setPerMinute} />
            <TextInput label="Calling window from" description="The person's local time" type="time" value={start} onChange={(e) => setStart(e.currentTarget.value)} />
            <TextInput label="Calling window until" description="The person's local time" type="time" value={end} onChange={(e) => setEnd(e.currentTarget.value)} />
          </SimpleGrid>
          <Group>
            <Button type="submit" disabled={!ready} loading={create.isPending}>
              Create campaign
            </Button>
          </Group>
          {skipped.length > 0 && (
            <Alert color="yellow" title="Some rows were skipped" data-testid="campaign-skipped">
              {skipped.map((line) => (
                <Text key={line} size="sm">
                  {line}
                </Text>
              ))}
              {create.data && (
                <Anchor component={Link} to={paths.admin.campaign(create.data.id)}>
                  Open the campaign
                </Anchor>
              )}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

