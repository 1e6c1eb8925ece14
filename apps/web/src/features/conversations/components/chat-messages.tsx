import { ActionIcon, Box, Checkbox, Group, Paper, Stack, Text } from '@mantine/core';
import { IconPencil } from '@tabler/icons-react';
import { fullDate, relativeTime } from '../lib/relative-time.ts';
import type { MessageDelivery, MessageView } from '@sales-agent/shared/schemas/conversation';
import { useState } from 'react';
import { MessageBox } from './message-box.tsx';

export interface ChatMessagesProps {
  messages: MessageView[];
  /** The type's initialMessage, shown first when it is not stored as the first message already. */
  initialMessage: string | null;
  /** Spec §4: for a prospect conversation the roles are swapped — the business's side (AGENT) is "us". */
  hasProspect: boolean;
  canAdminister: boolean;
  selected: Set<number>;
  onToggle(id: number): void;
  onEdit(messageId: number, text: string): Promise<boolean>;
  /** Where a message's stored voice note or picture is served (GET /api/conversation/{uuid}/messages/{id}/media). */
  mediaUrl?(messageId: number): string;
  /** Shown under an agent message (issue 21: the knowledge passages it used, for an ADMIN). */
  agentMessageFooter?(messageId: number): React.ReactNode;
}

/** Chat bubbles: the viewer's own side on the right. */
export function ChatMessages(props: ChatMessagesProps) {
  const [editing, setEditing] = useState<number | null>(null);
  const ownRole = props.hasProspect ? 'AGENT' : 'PROSPECT';
  const label = (role: string, author?: MessageView['author']) => {
    if (role === 'SYSTEM') return 'System';
    // Each message names its author (issue 24): the teammate who wrote it, or the AI.
    if (props.hasProspect) return role === 'AGENT' ? (author?.kind === 'person' ? (author.email ?? 'A teammate') : 'AI agent') : 'Prospect';
    return role === 'AGENT' ? 'Sales agent' : 'You';
  };
  // A web chat opens with the type's initial message even before it is stored. A prospect's conversation
  // (channel, call) has only what was really sent, so nothing is added there.
  const showInitial = !props.hasProspect && props.initialMessage && props.messages[0]?.message !== props.initialMessage;

  return (
    <Stack gap="sm" aria-label="Messages" role="log">
      {showInitial && (
        <Bubble own={ownRole === 'AGENT'} role="AGENT" label={label('AGENT')} testId="initial-message">
          <Text style={{ whiteSpace: 'pre-wrap' }}>{props.initialMessage}</Text>
        </Bubble>
      )}
      {props.messages.map((m) => (
        <Bubble
          key={m.id}
          own={m.role === ownRole}
          role={m.role}
          label={label(m.role, m.author)}
          date={m.dateSent}
          testId="message"
          tools={
            props.canAdminister && (
              <Group gap={4}>
                <Checkbox
                  size="xs"
                  aria-label={`Select message ${m.id}`}
                  checked={props.selected.has(m.id)}
                  onChange={() => props.onToggle(m.id)}
                />
                <ActionIcon size="sm" variant="subtle" aria-label={`Edit message ${m.id}`} onClick={() => setEditing(m.id)}>
                  <IconPencil size={14} aria-hidden />
                </ActionIcon>
              </Group>
            )
          }
        >
          {editing === m.id ? (
            <Stack gap={4}>
              <MessageBox
                label="Edit message"
                initialValue={m.message}
                submitLabel="Save message"
                placeholder="Message (Enter saves)"
                autoFocus
                onSend={async (text) => {
                  const ok = await props.onEdit(m.id, text);
                  if (ok) setEditing(null);
                  return false;
                }}
              />
              <Text size="xs" c="blue" style={{ cursor: 'pointer' }} onClick={() => setEditing(null)}>
                Cancel
              </Text>
            </Stack>
          ) : (
            <MessageBody message={m} mediaUrl={props.mediaUrl?.(m.id) ?? null} />
          )}
          {m.role === 'AGENT' && props.agentMessageFooter?.(m.id)}
        </Bubble>
      ))}
    </Stack>
  );
}

function Bubble(props: {
  own: boolean;
  role: string;
  label: string;
  date?: string;
  testId: string;
  tools?: React.ReactNode;
  children: React.ReactNode;
}) {
  const system = props.role === 'SYSTEM';
  return (
    <Box
      data-testid={props.testId}
      data-role={props.role}
      style={{ display: 'flex', justifyContent: system ? 'center' : props.own ? 'flex-end' : 'flex-start' }}
    >
      <Paper
        p="sm"
        radius="lg"
        maw="75%"
        miw={200}
        // Theme variables, so the bubbles follow dark mode; text keeps AA contrast on each.
        bg={system ? 'var(--mantine-color-default-hover)' : props.own ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default)'}
        withBorder
      >
        <Group justify="space-between" gap="xs" mb={4} wrap="nowrap">
          <Text size="xs" fw={600} style={{ color: 'light-dark(var(--mantine-color-gray-7), var(--mantine-color-dark-1))' }}>
            {props.label}
            {props.date && (
              <>
                {' · '}
                {/* Relative in the bubble, the full date on hover (issue 12). */}
                <time dateTime={props.date} title={fullDate(props.date)}>
                  {relativeTime(props.date)}
                </time>
              </>
            )}
          </Text>
          {props.tools}
        </Group>
        {props.children}
      </Paper>
    </Box>
  );
}

/**
 * A message's text with what the channel told us about it (issue 19): a voice note playable and a picture
 * shown from our own storage, "edited" with the earlier text, "deleted by the prospect"; a SYSTEM note is
 * the product's own remark (e.g. something the channel cannot show).
 */
function MessageBody({ message: m, mediaUrl }: { message: MessageView; mediaUrl: string | null }) {
  const deleted = Boolean(m.deletedAt);
  return (
    <Stack gap={4}>
      {m.hasMedia && mediaUrl && m.mediaType?.startsWith('audio/') && (
        <audio controls preload="none" src={mediaUrl} aria-label="Voice note" data-testid="message-audio" style={{ maxWidth: '100%' }} />
      )}
      {m.hasMedia && mediaUrl && m.mediaType?.startsWith('image/') && (
        <a href={mediaUrl} target="_blank" rel="noreferrer">
          <img src={mediaUrl} alt="Picture the prospect sent" loading="lazy" data-testid="message-image" style={{ maxWidth: '100%', maxHeight: 320, borderRadius: 8 }} />
        </a>
      )}
      <Text
        style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', textDecoration: deleted ? 'line-through' : undefined }}
        c={deleted ? 'dimmed' : undefined}
      >
        {m.message}
      </Text>
      {m.editedAt && (
        <Text size="xs" c="dimmed" data-testid="message-edited" title={m.previousMessage ? `Before: ${m.previousMessage}` : undefined}>
          Edited by the prospect{m.previousMessage ? ` (before: “${m.previousMessage}”)` : ''}
        </Text>
      )}
      {deleted && (
        <Text size="xs" c="red" data-testid="message-deleted">
          Deleted by the prospect
        </Text>
      )}
      {m.delivery && <DeliveryState delivery={m.delivery} />}
    </Stack>
  );
}

const DELIVERY_WORDS: Record<MessageDelivery['state'], string> = {
  pending: 'Sending…',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Not delivered',
};

/** What the channel reported about a reply (issue 24): sent, delivered, read, or not delivered and why. */
export function DeliveryState({ delivery }: { delivery: MessageDelivery }) {
  const failed = delivery.state === 'failed';
  return (
    <Text size="xs" ta="right" c={failed ? 'red' : 'dimmed'} data-testid="message-delivery" data-state={delivery.state}>
      {DELIVERY_WORDS[delivery.state]}
      {failed && delivery.error ? `: ${delivery.error}` : ''}
    </Text>
  );
}
