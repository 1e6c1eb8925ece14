import { Alert, Anchor, Button, Card, FileInput, Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../../lib/api-client.ts';
import { paths } from '../../../config/paths.ts';
import { conversationTypeOptionsQuery } from '../../conversations/api/conversations.ts';
import { pipelinesQuery } from '../../conversation-types/api/crm-contacts.ts';
import { useCreateCampaign } from '../api/campaigns.ts';

const CHANNELS = [
  { value: 'call', label: 'Phone call' },
  { value: 'sms', label: 'SMS' },
  { value: 'whatsapp', label: 'WhatsApp' },
];

/**
 * Issue 23 item 4: a new campaign — its contacts from a CSV or a GoHighLevel pipeline stage, pacing, the
 * calling window, a scheduled start, retries per outcome and the voicemail message (calls), the approved
 * template (WhatsApp). The server checks everything again (docs/campaigns.md).
 */
export function CreateCampaign() {
  const types = useQuery(conversationTypeOptionsQuery());
  const [name, setName] = useState('');
  const [typeId, setTypeId] = useState<string | null>(null);
  const [channel, setChannel] = useState<string | null>('call');
  const [file, setFile] = useState<File | null>(null);
  const [perMinute, setPerMinute] = useState<number | string>(10);
  const [start, setStart] = useState('09:00');
  const [end, setEnd] = useState('18:00');
  const [source, setSource] = useState<'csv' | 'ghl'>('csv');
  const [stageId, setStageId] = useState<string | null>(null);
  const [startAt, setStartAt] = useState('');
  const [retries, setRetries] = useState<Record<'noAnswer' | 'busy' | 'voicemail' | 'delayMinutes', number | string>>({ noAnswer: 1, busy: 1, voicemail: 0, delayMinutes: 60 });
  const [voicemailMessage, setVoicemailMessage] = useState('');
  const [templateName, setTemplateName] = useState('');
  const [templateLanguage, setTemplateLanguage] = useState('en_US');
  const [skipped, setSkipped] = useState<string[]>([]);
  const create = useCreateCampaign();
  const navigate = useNavigate();
  const pipelines = useQuery({ ...pipelinesQuery(typeId ?? ''), enabled: source === 'ghl' && typeId !== null });
  const stages = (pipelines.data?.pipelines ?? []).flatMap((p) => p.stages.map((st) => ({ value: st.id, label: `${p.name} — ${st.name}` })));
  const hasContacts = source === 'csv' ? file !== null : stageId !== null;
  const ready = name.trim() !== '' && typeId !== null && channel !== null && hasContacts && !create.isPending;
  const retry = (key: keyof typeof retries) => (value: number | string) => setRetries((r) => ({ ...r, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    const csv = source === 'csv' && file ? await file.text() : undefined;
    create.mutate(
      {
        name: name.trim(),
        conversationTypeId: Number(typeId),
        channel: channel as 'call' | 'sms' | 'whatsapp',
        ...(csv !== undefined ? { csv } : { audience: { ghlPipelineStageId: stageId! } }),
        callsPerMinute: Number(perMinute) || 10,
        window: start && end ? { start, end } : null,
        // datetime-local is the browser's local time; the server takes an instant.
        ...(startAt ? { startAt: new Date(startAt).toISOString() } : {}),
        ...(channel === 'call'
          ? {
              retries: { noAnswer: Number(retries.noAnswer) || 0, busy: Number(retries.busy) || 0, voicemail: Number(retries.voicemail) || 0, delayMinutes: Number(retries.delayMinutes) || 60 },
              ...(voicemailMessage.trim() ? { voicemailMessage: voicemailMessage.trim() } : {}),
            }
          : {}),
        ...(channel === 'whatsapp' && templateName.trim() ? { whatsappTemplate: { name: templateName.trim(), language: templateLanguage.trim() || 'en_US' } } : {}),
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
          <SegmentedControl
            aria-label="Contacts from"
            value={source}
            onChange={(v) => setSource(v as 'csv' | 'ghl')}
            data={[
              { value: 'csv', label: 'A CSV file' },
              { value: 'ghl', label: 'A GoHighLevel pipeline stage' },
            ]}
          />
          {source === 'csv' ? (
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
          ) : pipelines.isError ? (
            <Alert color="red" role="alert">
              {errorMessage(pipelines.error)}
            </Alert>
          ) : (
            <Select
              label="Pipeline stage"
              description="Every opportunity in the stage whose contact has a phone, read from GoHighLevel when you create the campaign."
              placeholder={typeId === null ? 'Choose a conversation type first' : 'Choose a stage'}
              required
              data={stages}
              value={stageId}
              onChange={setStageId}
              disabled={typeId === null}
              searchable
            />
          )}
          <SimpleGrid cols={{ base: 1, sm: 4 }}>
            <NumberInput label="Contacts per minute" min={1} max={600} value={perMinute} onChange={setPerMinute} />
            <TextInput label="Calling window from" description="The person's local time" type="time" value={start} onChange={(e) => setStart(e.currentTarget.value)} />
            <TextInput label="Calling window until" description="The person's local time" type="time" value={end} onChange={(e) => setEnd(e.currentTarget.value)} />
            <TextInput label="Start at" description="Empty: as soon as you start it" type="datetime-local" value={startAt} onChange={(e) => setStartAt(e.currentTarget.value)} />
          </SimpleGrid>
          {channel === 'call' && (
            <>
              <SimpleGrid cols={{ base: 2, sm: 4 }}>
                <NumberInput label="Retries after no answer" min={0} max={5} value={retries.noAnswer} onChange={retry('noAnswer')} />
                <NumberInput label="Retries after busy" min={0} max={5} value={retries.busy} onChange={retry('busy')} />
                <NumberInput label="Retries after voicemail" min={0} max={5} value={retries.voicemail} onChange={retry('voicemail')} />
                <NumberInput label="Retry after (minutes)" min={1} max={10080} value={retries.delayMinutes} onChange={retry('delayMinutes')} />
              </SimpleGrid>
              <Textarea
                label="Voicemail message"
                description="Said when an answering machine picks up (empty: the conversation type's voicemail message, if any)."
                autosize
                minRows={2}
                maxLength={1000}
                value={voicemailMessage}
                onChange={(e) => setVoicemailMessage(e.currentTarget.value)}
              />
            </>
          )}
          {channel === 'whatsapp' && (
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label="WhatsApp template"
                description="The approved template each conversation opens with (empty: the account's outside-window template). Only people with a recorded opt-in get it."
                value={templateName}
                onChange={(e) => setTemplateName(e.currentTarget.value)}
              />
              <TextInput label="Template language" description="Its language code, e.g. en_US" value={templateLanguage} onChange={(e) => setTemplateLanguage(e.currentTarget.value)} />
            </SimpleGrid>
          )}
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

