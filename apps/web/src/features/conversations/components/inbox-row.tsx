import { Badge, Group, Text, UnstyledButton } from '@mantine/core';
import type { ConversationListItem } from '@sales-agent/shared/schemas/conversation';
import { AI_STATE_TEXT, aiState, phaseWords } from '../lib/phase-words.ts';
import { fullDate, relativeTime } from '../lib/relative-time.ts';
import { ChannelIcon } from './channel-icon.tsx';

/** The prospect's name, or a short id: what a row and the panel call a conversation. */
export function conversationName(c: { uuid: string; Prospect: { uuid: string; name: string | null; phone?: string | null } | null }): string {
  if (c.Prospect) return prospectName(c.Prospect);
  return `Web chat ${c.uuid.slice(0, 8)}`;
}

/** The prospect's name, else their phone number (SMS, WhatsApp, calls), else a short id (issue 24). */
export function prospectName(p: { uuid: string; name: string | null; phone?: string | null }): string {
  return p.name ?? p.phone ?? `Prospect ${p.uuid.slice(0, 8)}`;
}

/** Who wrote the latest message, before its preview (issue 24): the real author, never "You:" for the AI. */
export function previewPrefix(c: Pick<ConversationListItem, 'lastMessage' | 'Prospect'>): string {
  const m = c.lastMessage;
  if (!m || m.role === 'PROSPECT') return '';
  if (m.role === 'SYSTEM') return 'System: ';
  if (m.author?.kind === 'person') return `${m.author.email ? m.author.email.split('@')[0] : 'Teammate'}: `;
  return 'AI: ';
}

/** One conversation in the inbox's list: who, when, the last message, and whether it is new or needs a person. */
export function InboxRow(props: { c: ConversationListItem; selected: boolean; unread: boolean; onOpen(): void }) {
  const { c } = props;
  const state = aiState(c);
  const preview = c.lastMessage ? `${previewPrefix(c)}${c.lastMessage.preview}` : 'No messages yet';
  const when = c.lastMessage?.dateSent ?? c.lastMessageDate;
  return (
    <UnstyledButton
      role="listitem"
      data-testid="inbox-row"
      data-uuid={c.uuid}
      data-unread={props.unread || undefined}
      data-needs-human={c.needsHuman || undefined}
      aria-current={props.selected ? 'true' : undefined}
      onClick={props.onOpen}
      w="100%"
      px="sm"
      py={8}
      style={{
        display: 'block',
        borderBottom: '1px solid var(--mantine-color-default-border)',
        borderLeft: `3px solid ${c.needsHuman ? 'var(--mantine-color-red-6)' : 'transparent'}`,
        background: props.selected ? 'var(--mantine-primary-color-light)' : undefined,
      }}
    >
      <Group gap={6} wrap="nowrap" justify="space-between">
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
          <ChannelIcon type={c.Prospect?.messagingAccount.type} />
          <Text size="sm" fw={props.unread ? 700 : 500} truncate="end" data-testid="row-name">
            {conversationName(c)}
          </Text>
        </Group>
        {when && (
          <Text size="xs" style={{ flex: 'none', color: 'light-dark(var(--mantine-color-gray-7), var(--mantine-color-dark-1))' }} title={fullDate(when)}>
            {relativeTime(when)}
          </Text>
        )}
      </Group>
      <Text size="sm" truncate="end" fw={props.unread ? 600 : 400} style={{ color: 'light-dark(var(--mantine-color-gray-8), var(--mantine-color-dark-0))' }} data-testid="row-preview">
        {preview}
      </Text>
      <Group gap={4} mt={2}>
        {c.assignee && (
          <Badge size="xs" color="violet" variant="light" data-testid="row-assignee" title={`Assigned to ${c.assignee}`}>
            {c.assignee.split('@')[0]}
          </Badge>
        )}
        {c.state === 'resolved' && (
          <Badge size="xs" color="green" variant="light" data-testid="row-resolved">
            Resolved
          </Badge>
        )}
        {props.unread && (
          <Badge size="xs" color="blue" variant="filled" data-testid="unread-mark">
            New
          </Badge>
        )}
        {c.doNotContact && (
          <Badge size="xs" color="red" variant="outline" data-testid="opted-out-mark" title="This prospect opted out: nothing automated is sent to them">
            Opted out
          </Badge>
        )}
        {state !== 'working' && (
          <Badge size="xs" color={AI_STATE_TEXT[state].color} variant={state === 'needs-human' ? 'filled' : 'light'} data-testid="row-state">
            {state === 'paused' ? 'AI paused' : AI_STATE_TEXT[state].label}
          </Badge>
        )}
        {(state === 'working' || state === 'paused') && (
          <Text span size="xs" style={{ color: 'light-dark(var(--mantine-color-gray-7), var(--mantine-color-dark-1))' }}>
            {phaseWords(c.phase, c.phaseCount)}
          </Text>
        )}
      </Group>
    </UnstyledButton>
  );
}
