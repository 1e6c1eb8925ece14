import { Button, Card, Checkbox, Group, Select, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { truncate } from '@sales-agent/shared/truncate';
import { conversationTypeOptionsQuery } from '../api/conversations.ts';
import { phaseOptions } from './phase-options.ts';

/** Spec §6 admin controls: phase, type, delete conversation, select all / delete messages, follow-up, rebuild history. */
export function AdminControls(props: {
  conversation: ConversationDetail;
  selectedCount: number;
  onPhase(phase: number): void;
  onType(typeId: number): void;
  onDeleteConversation(): void;
  onSelectAll(all: boolean): void;
  onDeleteMessages(): void;
  onFollowUp(): void;
  /** Why Follow-up cannot work now (outside a working phase, AI paused); null when it can (issue 12). */
  followUpDisabledReason?: string | null;
  /** Rebuild history (spec §6): given only to an ADMIN on a prospect conversation. */
  onRebuild?(): void;
  rebuilding?: boolean;
}) {
  const c = props.conversation;
  const types = useQuery(conversationTypeOptionsQuery());
  const allSelected = c.messages.length > 0 && props.selectedCount === c.messages.length;
  const typeData = (types.data ?? []).map((t) => ({ value: String(t.id), label: truncate(t.label, TRUNCATE.typeSelectLabel) }));
  if (c.conversationTypeId !== null && !typeData.some((t) => t.value === String(c.conversationTypeId))) {
    typeData.unshift({ value: String(c.conversationTypeId), label: c.ConversationType?.title ?? `Type ${c.conversationTypeId}` });
  }

  return (
    <Card withBorder aria-label="Admin controls">
      <Group align="flex-end" wrap="wrap">
        <Select
          label="Phase"
          data={phaseOptions(c.ConversationType?.conversation_phases ?? [], c.phaseCount)}
          value={String(c.phase)}
          onChange={(v) => v !== null && Number(v) !== c.phase && props.onPhase(Number(v))}
          allowDeselect={false}
          w={320}
        />
        <Select
          label="Conversation type"
          data={typeData}
          value={c.conversationTypeId === null ? null : String(c.conversationTypeId)}
          onChange={(v) => v !== null && Number(v) !== c.conversationTypeId && props.onType(Number(v))}
          allowDeselect={false}
          placeholder="No type"
          w={260}
        />
        <Tooltip label={props.followUpDisabledReason} disabled={!props.followUpDisabledReason} multiline w={280}>
          <span>
            <Button variant="light" onClick={props.onFollowUp} disabled={Boolean(props.followUpDisabledReason)}>
              Follow-up
            </Button>
          </span>
        </Tooltip>
        {props.onRebuild && (
          <Button variant="light" color="grape" onClick={props.onRebuild} loading={props.rebuilding}>
            Rebuild history
          </Button>
        )}
        <Button color="red" variant="light" onClick={props.onDeleteConversation}>
          Delete conversation
        </Button>
      </Group>
      {props.followUpDisabledReason && (
        <Text size="xs" c="dimmed" mt={4} data-testid="follow-up-reason">
          Follow-up: {props.followUpDisabledReason}
        </Text>
      )}
      <Group mt="sm">
        <Checkbox
          label="Select all"
          checked={allSelected}
          indeterminate={props.selectedCount > 0 && !allSelected}
          onChange={(e) => props.onSelectAll(e.currentTarget.checked)}
          disabled={c.messages.length === 0}
        />
        <Button size="xs" color="red" variant="outline" disabled={props.selectedCount === 0} onClick={props.onDeleteMessages}>
          Delete selected messages{props.selectedCount ? ` (${props.selectedCount})` : ''}
        </Button>
      </Group>
    </Card>
  );
}
