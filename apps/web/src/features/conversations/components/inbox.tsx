import { Alert, Anchor, Badge, Box, Button, Group, Loader, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConversationListItem, ConversationListResponse } from '@sales-agent/shared/schemas/conversation';
import {
  IconArrowLeft,
  IconBrandInstagram,
  IconBrandMessenger,
  IconBrandWhatsapp,
  IconMessage,
  IconPhone,
  IconWorld,
} from '@tabler/icons-react';
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { channelLabel } from '../../../components/channel-badge.tsx';
import { isRefreshFailing, ReconnectingNotice } from '../../../components/reconnecting-notice.tsx';
import { paths } from '../../../config/paths.ts';
import { afterPaint } from '../../../lib/after-paint.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { conversationQuery, handBack, takeOver, useMarkRead } from '../api/conversations.ts';
import { AI_STATE_TEXT, aiState, phaseWords } from '../lib/phase-words.ts';
import { fullDate, relativeTime } from '../lib/relative-time.ts';

/**
 * The open conversation's pane loads with the first conversation opened, not with the list: it is about 40 %
 * of the inbox's code (reply box, call and confirm helpers, NumberInput), and the list's first screen does not
 * show it (docs/performance.md, "Lighthouse"). The list asks for it as soon as it has drawn its rows.
 */
const loadConversationView = () => import('./conversation-view.tsx');
const ConversationView = lazy(async () => ({ default: (await loadConversationView()).ConversationView }));

function PaneLoading() {
  return (
    <Stack align="center" justify="center" p="xl">
      <Loader aria-label="Loading the conversation" />
    </Stack>
  );
}

const ICON = { size: 18, stroke: 1.8, 'aria-hidden': true } as const;

/** A maintained icon per channel (issue 12); the label goes with it for screen readers. */
export function ChannelIcon({ type }: { type: string | null | undefined }) {
  const icon =
    type === 'INSTAGRAM' ? (
      <IconBrandInstagram {...ICON} />
    ) : type === 'FACEBOOK' ? (
      <IconBrandMessenger {...ICON} />
    ) : type === 'WHATSAPP' ? (
      <IconBrandWhatsapp {...ICON} />
    ) : type === 'TWILIO' ? (
      <IconPhone {...ICON} />
    ) : type === 'SMS_GATEWAY' ? (
      <IconMessage {...ICON} />
    ) : (
      <IconWorld {...ICON} />
    );
  return (
    <Box component="span" title={channelLabel(type)} style={{ display: 'inline-flex' }} data-testid="channel-icon">
      {icon}
      <span className="visually-hidden" style={visuallyHidden}>
        {channelLabel(type)}
      </span>
    </Box>
  );
}

const visuallyHidden: React.CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
};

/** The prospect's name, or a short id: what a row and the panel call a conversation. */
export function conversationName(c: Pick<ConversationListItem, 'uuid' | 'Prospect'>): string {
  if (c.Prospect) return c.Prospect.name ?? `Prospect ${c.Prospect.uuid.slice(0, 8)}`;
  return `Web chat ${c.uuid.slice(0, 8)}`;
}

const money = (usd: number) =>
  usd.toLocaleString(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: usd > 0 && usd < 0.01 ? 4 : 2 });

export interface InboxProps {
  list: { data?: ConversationListResponse; isPending: boolean; isError: boolean; error: unknown; failureCount: number; failureReason: unknown };
  openUuid: string | null;
  onOpen(uuid: string | null): void;
  /** Rendered under the list: paging. */
  pager: ReactNode;
  /** Rendered when the list is empty. */
  empty: ReactNode;
}

/**
 * The team's inbox (issue 12): on a wide screen the list, the open conversation and a panel about the
 * prospect side by side; on a phone the list, then the conversation. j/k or the arrow keys move through
 * conversations, r focuses the reply, t takes over, h hands back to the AI.
 */
export function Inbox(props: InboxProps) {
  const wide = useMediaQuery('(min-width: 62em)', true, { getInitialValueInEffect: false });
  const withPanel = useMediaQuery('(min-width: 75em)', true, { getInitialValueInEffect: false });
  const markRead = useMarkRead();
  const replyRef = useRef<HTMLTextAreaElement>(null);
  const rowsRef = useRef<HTMLDivElement>(null);
  const client = useQueryClient();
  const rows = props.list.data?.conversations ?? [];
  const open = rows.find((r) => r.uuid === props.openUuid) ?? null;
  const detail = useQuery({ ...conversationQuery(props.openUuid ?? ''), enabled: Boolean(props.openUuid) });

  // Opening an unread conversation, and new prospect messages arriving while it is open (the live list
  // refetches and says unread again), mark it read for this user on the server: every device of theirs.
  const openUuid = open?.uuid ?? null;
  const openUnreadUpTo = open?.unread ? (open.lastMessage?.dateSent ?? null) : null;
  useEffect(() => {
    if (openUuid && openUnreadUpTo) markRead(openUuid, openUnreadUpTo);
  }, [openUuid, openUnreadUpTo, markRead]);

  // Fetch the pane's code once the list has drawn, so opening a conversation does not wait for it.
  const listShown = !props.list.isPending;
  useEffect(() => {
    if (!listShown) return;
    return afterPaint(() => void loadConversationView().catch(() => undefined), { idle: true });
  }, [listShown]);

  const move = useCallback(
    (step: number) => {
      if (rows.length === 0) return;
      const index = rows.findIndex((r) => r.uuid === props.openUuid);
      const next = index === -1 ? (step > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + step));
      props.onOpen(rows[next].uuid);
      rowsRef.current?.querySelector<HTMLElement>(`[data-uuid="${rows[next].uuid}"]`)?.scrollIntoView?.({ block: 'nearest' });
    },
    [rows, props],
  );

  const refresh = useCallback(async () => {
    await client.invalidateQueries({ queryKey: ['conversations'] });
    if (props.openUuid) await client.invalidateQueries({ queryKey: ['conversation', props.openUuid] });
  }, [client, props.openUuid]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      const typing = target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (typing) {
        // Escape leaves the reply box so the shortcuts work again.
        if (e.key === 'Escape' && target === replyRef.current) replyRef.current?.blur();
        return;
      }
      if (document.querySelector('[role="dialog"]')) return;
      const c = detail.data;
      if (e.key === 'j' || e.key === 'ArrowDown') {
        e.preventDefault();
        move(1);
      } else if (e.key === 'k' || e.key === 'ArrowUp') {
        e.preventDefault();
        move(-1);
      } else if (e.key === 'r' && replyRef.current) {
        e.preventDefault();
        replyRef.current.focus();
      } else if ((e.key === 'h' || e.key === 't') && c?.canAdminister && c.Prospect) {
        e.preventDefault();
        const action = e.key === 'h' ? () => handBack(c.id) : () => takeOver(c.id);
        action().then(
          async (r) => {
            toastSuccess(r.message);
            await refresh();
          },
          (err: unknown) => toastError(err),
        );
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, detail.data, refresh]);

  // A list only while it holds rows: the loader, an error or the empty state are not list items (axe's
  // aria-required-children, Lighthouse accessibility).
  // A failed refresh keeps the rows on screen with a notice; only a list never loaded shows the error (issue 18).
  const failed = props.list.isError && props.list.data === undefined;
  const hasRows = !props.list.isPending && !failed && rows.length > 0;
  const listColumn = (
    <Stack gap={0} style={{ minHeight: 0, height: wide ? '100%' : undefined }}>
      {isRefreshFailing(props.list) && (
        <Box px="sm" py={4} style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
          <ReconnectingNotice error={props.list.error ?? props.list.failureReason} />
        </Box>
      )}
      <Box
        ref={rowsRef}
        style={{ flex: 1, overflowY: wide ? 'auto' : undefined, minHeight: 0 }}
        role={hasRows ? 'list' : undefined}
        aria-label={hasRows ? 'Conversations' : undefined}
      >
        {props.list.isPending ? (
          <Loader aria-label="Loading conversations" m="md" />
        ) : failed ? (
          <Alert color="red" m="sm">
            {errorMessage(props.list.error)}
          </Alert>
        ) : rows.length === 0 ? (
          props.empty
        ) : (
          rows.map((c) => (
            <InboxRow key={c.id} c={c} selected={c.uuid === props.openUuid} unread={c.unread} onOpen={() => props.onOpen(c.uuid)} />
          ))
        )}
      </Box>
      <Box p="xs" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
        {props.pager}
      </Box>
    </Stack>
  );

  const hint = (
    <Text size="xs" c="dimmed" data-testid="keyboard-hint">
      Keys: j/k or ↑/↓ move · r reply · t take over · h hand back · Esc leaves the reply box
    </Text>
  );

  if (!wide) {
    if (props.openUuid) {
      return (
        <Stack gap="sm">
          <Group justify="space-between">
            <Button variant="subtle" size="compact-sm" leftSection={<IconArrowLeft size={16} aria-hidden />} onClick={() => props.onOpen(null)}>
              All conversations
            </Button>
            <Anchor component={Link} to={paths.conversation(props.openUuid)} size="sm">
              Full page
            </Anchor>
          </Group>
          <Box component="details" data-testid="prospect-details">
            <Box component="summary" style={{ cursor: 'pointer' }}>
              <Text span size="sm" fw={600}>
                About the prospect
              </Text>
            </Box>
            <Box pt="xs">
              <ProspectPanel row={open} detailUuid={props.openUuid} compact />
            </Box>
          </Box>
          <Suspense fallback={<PaneLoading />}>
            <ConversationView uuid={props.openUuid} mode="page" foldControls replyRef={replyRef} onDeleted={() => props.onOpen(null)} />
          </Suspense>
        </Stack>
      );
    }
    return <Box style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }}>{listColumn}</Box>;
  }

  return (
    <Stack gap={4}>
      <Box
        data-testid="inbox"
        style={{
          display: 'grid',
          gridTemplateColumns: withPanel ? 'minmax(260px, 330px) minmax(0, 1fr) 270px' : 'minmax(240px, 320px) minmax(0, 1fr)',
          // The inbox fills the screen below the header; each column scrolls on its own.
          height: 'calc(100dvh - 215px)',
          minHeight: 480,
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 8,
          overflow: 'hidden',
        }}
      >
        <Box style={{ borderRight: '1px solid var(--mantine-color-default-border)', minHeight: 0 }}>{listColumn}</Box>
        <Box style={{ minHeight: 0, minWidth: 0 }}>
          {props.openUuid ? (
            <Suspense fallback={<PaneLoading />}>
              <ConversationView
                key={props.openUuid}
                uuid={props.openUuid}
                mode="pane"
                replyRef={replyRef}
                onDeleted={() => props.onOpen(null)}
              />
            </Suspense>
          ) : (
            <Stack align="center" justify="center" h="100%" p="xl" gap="xs">
              <Text fw={600}>Pick a conversation</Text>
              <Text size="sm" c="dimmed" ta="center">
                Choose one on the left, or press j to open the first. Marked rows need a person; bold rows have new messages.
              </Text>
            </Stack>
          )}
        </Box>
        {withPanel && (
          <Box style={{ borderLeft: '1px solid var(--mantine-color-default-border)', overflowY: 'auto', minHeight: 0 }} p="sm">
            <ProspectPanel row={open} detailUuid={props.openUuid} />
          </Box>
        )}
      </Box>
      {hint}
    </Stack>
  );
}

function InboxRow(props: { c: ConversationListItem; selected: boolean; unread: boolean; onOpen(): void }) {
  const { c } = props;
  const state = aiState(c);
  const preview = c.lastMessage ? `${c.lastMessage.role === 'PROSPECT' ? '' : c.Prospect ? 'You: ' : 'Agent: '}${c.lastMessage.preview}` : 'No messages yet';
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
        {props.unread && (
          <Badge size="xs" color="blue" variant="filled" data-testid="unread-mark">
            New
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

/** About the prospect (issue 12): who, where, how far, the AI's state, follow-ups, recording and cost. */
function ProspectPanel(props: { row: ConversationListItem | null; detailUuid?: string | null; compact?: boolean }) {
  const detail = useQuery({ ...conversationQuery(props.detailUuid ?? ''), enabled: Boolean(props.detailUuid) && !props.row });
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
  const items: [string, ReactNode][] = [
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
          {row ? conversationName(row) : prospect ? (prospect.name ?? `Prospect ${prospect.uuid.slice(0, 8)}`) : 'Web chat'}
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
    </Stack>
  );
}
