import { Anchor, Badge, Box, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ContactView, ConversationListItem } from '@sales-agent/shared/schemas/conversation';
import { Link } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { relativeTime } from '../lib/relative-time.ts';
import { lazy, Suspense, type ReactNode } from 'react';
import { channelLabel } from '../../../components/channel-badge.tsx';
import { conversationQuery } from '../api/conversations.ts';
import { AI_STATE_TEXT, aiState, phaseWords } from '../lib/phase-words.ts';
import { conversationName, prospectName } from './inbox-row.tsx';
import { LeadFields } from './lead-fields.tsx';
import { PanelBookings } from './panel-bookings.tsx';

// Loaded with the first contact shown: the inbox's first paint does not wait for the editor.
const ContactActions = lazy(() => import('./contact-editor.tsx').then((m) => ({ default: m.ContactActions })));

const money = (usd: number) =>
  usd.toLocaleString(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: usd > 0 && usd < 0.01 ? 4 : 2 });

/** About the prospect (issue 12): who, where, how far, the AI's state, follow-ups, recording and cost. */
export function ProspectPanel(props: { row: ConversationListItem | null; detailUuid?: string | null; compact?: boolean }) {
  // The same query as the open conversation's pane: no extra request.
  const detail = useQuery({ ...conversationQuery(props.detailUuid ?? ''), enabled: Boolean(props.detailUuid) });
  const row = props.row;
  if (!row && !detail.data) {
    return props.compact ? null : (
      <Text size="sm" c="dimmed">
        The prospect’s details appear here when a conversation is open.
      </Text>
    );
  }
  const d = detail.data;
  const phase = row?.phase ?? d!.phase;
  const phaseCount = row?.phaseCount ?? d!.phaseCount;
  const state = aiState({ phase, phaseCount, aiPaused: row?.aiPaused ?? d!.aiPaused, needsHuman: row?.needsHuman });
  const prospect = row?.Prospect ?? d?.Prospect ?? null;
  const contact = d?.contact ?? null;
  const items: [string, ReactNode][] = [
    ...(contact?.name ? [['Name', <span key="name" data-testid="contact-name">{contact.name}</span>] as [string, ReactNode]] : []),
    ...(contact?.phone ? [['Phone', <span key="phone" data-testid="contact-phone">{contact.phone}</span>] as [string, ReactNode]] : []),
    ...(contact?.email ? [['Email', <span key="email" data-testid="contact-email">{contact.email}</span>] as [string, ReactNode]] : []),
    ...(d?.assignee !== undefined ? [['Assignee', d.assignee ?? 'Unassigned'] as [string, ReactNode]] : []),
    ['Channel', channelLabel(prospect?.messagingAccount.type)],
    ['Account', prospect?.messagingAccount.pageName ?? '—'],
    ['Stage', phaseWords(phase, phaseCount)],
    ['AI', <Badge key="ai" size="sm" color={AI_STATE_TEXT[state].color} variant="light" data-testid="panel-ai-state">{AI_STATE_TEXT[state].label}</Badge>],
    ['Rating', (row?.rating ?? d?.rating) ?? '—'],
    [
      'Follow-ups',
      row?.followUp
        ? `${row.followUp.followUpCount} sent · ${row.followUp.status === 'ACTIVE' ? 'more due while the prospect is silent' : 'stopped'}${row.followUp.hasErrors ? ' · errors recorded' : ''}`
        : 'None due',
    ],
    [
      'Recording',
      (row?.recordingUrl ?? d?.recordingUrl) ? (
        <Anchor key="rec" href={(row?.recordingUrl ?? d?.recordingUrl)!} target="_blank" rel="noreferrer" size="sm">
          Listen
        </Anchor>
      ) : (
        'None'
      ),
    ],
    ['Cost', row ? money(row.costUsd) : '—'],
  ];
  return (
    <Stack gap={6} data-testid="prospect-panel" aria-label="About the prospect">
      {!props.compact && (
        <Title order={2} fz="h5">
          {row ? conversationName(row) : prospect ? prospectName(prospect) : 'Web chat'}
        </Title>
      )}
      <Box component="dl" m={0} style={{ display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '4px 10px' }}>
        {items.map(([label, value]) => (
          <Box key={label} style={{ display: 'contents' }}>
            <Text component="dt" size="xs" fw={600} style={{ color: 'light-dark(var(--mantine-color-gray-7), var(--mantine-color-dark-1))' }}>
              {label}
            </Text>
            <Text component="dd" size="sm" m={0}>
              {value}
            </Text>
          </Box>
        ))}
      </Box>
      {contact && (
        <Suspense fallback={null}>
          <ContactActions key={contact.id} contact={contact} />
        </Suspense>
      )}
      {contact && <ContactHistory contact={contact} currentUuid={d!.uuid} />}
      {(row?.uuid ?? props.detailUuid) && <PanelBookings uuid={(row?.uuid ?? props.detailUuid)!} />}
      {(row?.uuid ?? props.detailUuid) && <LeadFields uuid={(row?.uuid ?? props.detailUuid)!} />}
    </Stack>
  );
}

/** The person across channels (issue 24): their handles and every conversation the viewer may see. */
function ContactHistory({ contact, currentUuid }: { contact: ContactView; currentUuid: string }) {
  return (
    <Stack gap={4} mt="xs" data-testid="contact-history">
      {contact.handles.length > 0 && (
        <Title order={3} fz="sm">
          Handles
        </Title>
      )}
      {contact.handles.map((h) => (
        <Text key={`${h.channel}-${h.externalId}`} size="xs">
          {channelLabel(h.channel)} · {h.name ?? h.externalId} ({h.accountName})
        </Text>
      ))}
      <Title order={3} fz="sm" mt={4}>
        Conversations ({contact.conversations.length})
      </Title>
      {contact.conversations.map((c) => (
        <Text key={c.uuid} size="xs" data-testid="contact-conversation">
          {c.uuid === currentUuid ? (
            <Text span fw={600} size="xs">
              This conversation
            </Text>
          ) : (
            <Anchor component={Link} to={paths.conversation(c.uuid)} size="xs">
              {channelLabel(c.channel)} conversation
            </Anchor>
          )}{' '}
          · {c.state === 'resolved' ? 'Resolved' : phaseWords(c.phase, c.phaseCount)}
          {c.lastMessageDate ? ` · ${relativeTime(c.lastMessageDate)}` : ''}
        </Text>
      ))}
    </Stack>
  );
}
