import { Alert, Anchor, Box, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ConversationListResponse } from '@sales-agent/shared/schemas/conversation';
import { IconArrowLeft } from '@tabler/icons-react';
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { isRefreshFailing, ReconnectingNotice } from '../../../components/reconnecting-notice.tsx';
import { paths } from '../../../config/paths.ts';
import { afterPaint } from '../../../lib/after-paint.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { conversationQuery, useMarkRead } from '../api/conversations.ts';
import { InboxRow } from './inbox-row.tsx';
import { ProspectPanel } from './prospect-panel.tsx';
import { useInboxKeys } from './use-inbox-keys.ts';

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

  useInboxKeys({ move, replyRef, open: detail.data });

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
