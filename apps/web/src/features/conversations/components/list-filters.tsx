import { Button, Card, Drawer, Group, NumberInput, Select, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { PHASE, phaseLabel } from '@sales-agent/shared/enums';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { type ReactNode, useEffect, useState } from 'react';
import { conversationTypeOptionsQuery } from '../api/conversations.ts';
import { TEXT_FILTERS } from '../lib/list-filter-keys.ts';
import { CONVERSATION_CHANNELS as CHANNELS } from '@sales-agent/shared/schemas/conversation';
import { channelLabel } from '../../../components/channel-badge.tsx';

/**
 * The phase filter in words (issue 24 item 8), not a number to guess: the special codes as the spec names them
 * (waiting, needs a person, errored, ignored) and the working steps by number (phase n is step n + 1).
 */
export const PHASE_OPTIONS = [
  ...[PHASE.WAITING, PHASE.NEEDS_HUMAN, PHASE.ERRORED, PHASE.IGNORED].map((p) => ({ value: String(p), label: phaseLabel(p, -99) })),
  ...Array.from({ length: 10 }, (_, n) => ({ value: String(n), label: `Step ${n + 1} (phase ${n})` })),
];

export function ListFilters(props: { params: URLSearchParams; onChange(changes: Record<string, string | null>): void }) {
  const types = useQuery(conversationTypeOptionsQuery());
  const [draft, setDraft] = useState<Record<string, string>>({});
  const paramsKey = props.params.toString();
  useEffect(() => {
    setDraft(Object.fromEntries(TEXT_FILTERS.map((k) => [k, props.params.get(k) ?? ''])));
    // the query string is the source of truth; re-read it whenever it changes
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [paramsKey]);
  const set = (key: string) => (value: string | number) => setDraft((d) => ({ ...d, [key]: String(value) }));
  const apply = () => props.onChange(Object.fromEntries(TEXT_FILTERS.map((k) => [k, draft[k]?.trim() || null])));
  const reset = () =>
    props.onChange(Object.fromEntries([...TEXT_FILTERS, 'conversationType', 'hasRecording', 'orderBy', 'state', 'channel'].map((k) => [k, null])));
  const num = (key: string, label: string, min?: number) => (
    <NumberInput label={label} value={draft[key] ?? ''} onChange={set(key)} min={min} w={150} allowDecimal={false} />
  );

  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
      >
        <Group align="flex-end" wrap="wrap" gap="sm">
          <TextInput label="UUID" value={draft.uuid ?? ''} onChange={(e) => set('uuid')(e.currentTarget.value)} w={300} placeholder="whole or start" />
          <TextInput
            label="Prospect UUID"
            value={draft.prospectUuid ?? ''}
            onChange={(e) => set('prospectUuid')(e.currentTarget.value)}
            w={300}
            placeholder="whole or start"
          />
          <Select
            label="Phase"
            data={PHASE_OPTIONS}
            value={draft.phase || null}
            onChange={(v) => set('phase')(v ?? '')}
            clearable
            placeholder="Any phase"
            w={230}
          />
          <Select
            label="Conversation type"
            data={(types.data ?? []).map((t) => ({ value: String(t.id), label: truncate(t.label, TRUNCATE.typeSelectLabel) }))}
            value={props.params.get('conversationType')}
            onChange={(v) => props.onChange({ conversationType: v })}
            clearable
            placeholder="All types"
            w={260}
          />
          {num('minRating', 'Min rating', 0)}
          {num('maxRating', 'Max rating', 0)}
          <TextInput
            label="Outcome"
            value={draft.outcome ?? ''}
            onChange={(e) => set('outcome')(e.currentTarget.value)}
            w={170}
            placeholder="e.g. booked"
          />
          {num('minRecordingDuration', 'Min recording (s)', 0)}
          {num('maxRecordingDuration', 'Max recording (s)', 0)}
          <Select
            label="Has recording"
            data={[
              { value: 'all', label: 'All' },
              { value: 'true', label: 'With recording' },
              { value: 'false', label: 'Without recording' },
            ]}
            value={props.params.get('hasRecording') ?? 'all'}
            onChange={(v) => props.onChange({ hasRecording: v === 'all' ? null : v })}
            allowDeselect={false}
            w={170}
          />
          <Select
            label="State"
            data={[
              { value: 'all', label: 'All' },
              { value: 'open', label: 'Open' },
              { value: 'snoozed', label: 'Snoozed' },
              { value: 'resolved', label: 'Resolved' },
            ]}
            value={props.params.get('state') ?? 'all'}
            onChange={(v) => props.onChange({ state: v === 'all' ? null : v })}
            allowDeselect={false}
            w={150}
          />
          <Select
            label="Channel"
            data={[{ value: 'all', label: 'All channels' }, ...CHANNELS.map((c) => ({ value: c, label: c === 'WEB' ? 'Web chat' : channelLabel(c) }))]}
            value={props.params.get('channel') ?? 'all'}
            onChange={(v) => props.onChange({ channel: v === 'all' ? null : v })}
            allowDeselect={false}
            w={190}
          />
          <Select
            label="Order by"
            data={[
              { value: 'latestMessageDate', label: 'Latest message' },
              { value: 'latestConversations', label: 'Latest conversations' },
            ]}
            value={props.params.get('orderBy') ?? 'latestMessageDate'}
            onChange={(v) => props.onChange({ orderBy: v })}
            allowDeselect={false}
            w={200}
          />
          <Button type="submit">Apply filters</Button>
          <Button variant="subtle" onClick={reset}>
            Reset
          </Button>
        </Group>
      </form>
    </Card>
  );
}

/** The filters in a drawer: from the bottom on a phone, from the right beside the inbox on a wide screen. */
export function FiltersDrawer(props: { opened: boolean; onClose(): void; phone: boolean; children: ReactNode }) {
  return (
    <Drawer
      opened={props.opened}
      onClose={props.onClose}
      title="Filters and order"
      position={props.phone ? 'bottom' : 'right'}
      size={props.phone ? '85%' : 'md'}
    >
      {props.children}
    </Drawer>
  );
}
