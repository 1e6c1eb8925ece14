import { Alert, Box, Center, Loader, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type RefObject, useEffect, useRef } from 'react';
import { isRefreshFailing, ReconnectingNotice } from '../../../components/reconnecting-notice.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth.ts';
import { conversationQuery, useConversationEvents, useMarkRead } from '../api/conversations.ts';
import { AgentActions } from './agent-actions.tsx';
import { ConversationNotes } from './conversation-notes.tsx';
import { ConversationHeader } from './conversation-header.tsx';
import { ConversationReply } from './conversation-reply.tsx';
import { ConversationThread } from './conversation-thread.tsx';
import { isAgentWorking } from './phase-options.ts';

export interface ConversationViewProps {
  uuid: string;
  /**
   * page: the conversation is the page (the window scrolls; the message box sticks to the bottom of the
   * screen). pane: it fills a fixed-height pane of the inbox (the thread scrolls inside it).
   */
  mode: 'page' | 'pane';
  viewOnly?: boolean;
  /** The reply box, for the inbox's keyboard shortcut. */
  replyRef?: RefObject<HTMLTextAreaElement | null>;
  /** Where the closing notice's 'Start a new conversation' goes (the widget's frame stays in the frame). */
  newConversationHref?: string;
  /** Fold the admin controls behind a summary line (the inbox: the thread comes first). Always in pane mode. */
  foldControls?: boolean;
  /** After the conversation was deleted (the inbox closes it; the page goes to the list). */
  onDeleted?(): void;
}

/**
 * Spec §2.13 conversation detail: bubbles, admin controls, message box; live (SSE) and polled every 10 s.
 * Used as the page /conversation/{uuid} and as the inbox's open conversation.
 */
export function ConversationView(props: ConversationViewProps) {
  const { uuid } = props;
  const query = useQuery(conversationQuery(uuid));
  // Kept open through a failed refresh: its reconnect ('ready') is what refetches first when the server is back.
  useConversationEvents(uuid, query.data !== undefined);
  const auth = useAuth();
  const bottom = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const lastId = query.data?.messages.at(-1)?.id;
  const working = query.data ? isAgentWorking(query.data) : false;

  // A team member reading the conversation on its own page reads it as in the inbox (the inbox marks its open
  // pane itself): up to the prospect's latest message, for this user on every device.
  const markRead = useMarkRead();
  const last = query.data?.messages.at(-1);
  const unreadUpTo = props.mode === 'page' && auth.isAuthenticated && last?.role === 'PROSPECT' ? last.dateSent : null;
  useEffect(() => {
    if (unreadUpTo) markRead(uuid, unreadUpTo);
  }, [uuid, unreadUpTo, markRead]);

  // Keep the newest message (and the typing line) in view.
  useEffect(() => {
    if (props.mode === 'pane') {
      const el = scroller.current;
      if (el) el.scrollTop = el.scrollHeight;
    } else {
      bottom.current?.scrollIntoView?.({ block: 'end' });
    }
  }, [lastId, working, props.mode]);

  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading conversation" />
      </Center>
    );
  }
  const missing = query.error instanceof ApiError && query.error.status === 404;
  // Only a first load that failed, or a conversation that is gone, replaces the view with the error. A failed
  // background refresh keeps the conversation and the message box (what is being typed) on screen, with a
  // "Reconnecting…" notice until a refetch succeeds (issue 18).
  if (query.isError && (query.data === undefined || missing)) {
    return (
      <Alert color={missing ? 'gray' : 'red'} title="Conversation">
        {missing ? 'No conversation found' : `Error: ${errorMessage(query.error)}`}
      </Alert>
    );
  }
  const c = query.data;
  if (!c) return <Alert title="Conversation">No conversation found</Alert>;


  const header = <ConversationHeader conversation={c} mode={props.mode} />;
  const thread = (
    <>
      <ConversationThread conversation={c} foldControls={props.mode === 'pane' || Boolean(props.foldControls)} onDeleted={props.onDeleted} />
      <AgentActions conversation={c} />
      {c.canAdminister && <ConversationNotes conversation={c} />}
    </>
  );
  const hasReply = (c.ended && c.Prospect === null) || !props.viewOnly;
  const reply = hasReply ? (
    <ConversationReply conversation={c} viewOnly={props.viewOnly} replyRef={props.replyRef} newConversationHref={props.newConversationHref} />
  ) : null;
  // Next to the message box, where the writer looks (the page's header may be scrolled away).
  const reconnecting = isRefreshFailing(query) ? <ReconnectingNotice error={query.error ?? query.failureReason} /> : null;
  const footer =
    reconnecting || reply ? (
      <Stack gap={4}>
        {reconnecting}
        {reply}
      </Stack>
    ) : null;

  if (props.mode === 'pane') {
    return (
      <Box style={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }} data-testid="conversation-pane">
        <Box p="sm" style={{ flex: 'none', borderBottom: '1px solid var(--mantine-color-default-border)' }}>
          {header}
        </Box>
        <Box ref={scroller} p="sm" style={{ flex: 1, overflowY: 'auto', minHeight: 0 }} data-testid="thread-scroller">
          {thread}
        </Box>
        {footer && (
          <Box p="sm" style={{ flex: 'none', borderTop: '1px solid var(--mantine-color-default-border)' }}>
            {footer}
          </Box>
        )}
      </Box>
    );
  }
  return (
    <Stack gap="sm">
      {header}
      {thread}
      {footer && (
        // Pinned to the bottom of the screen while the thread scrolls above it (issue 12), on every size.
        <Box
          data-testid="composer"
          py="sm"
          style={{
            position: 'sticky',
            bottom: 0,
            zIndex: 2,
            background: 'var(--mantine-color-body)',
            borderTop: '1px solid var(--mantine-color-default-border)',
          }}
        >
          {footer}
        </Box>
      )}
      <div ref={bottom} />
    </Stack>
  );
}
