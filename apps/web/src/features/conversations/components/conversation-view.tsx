import { Alert, Badge, Box, Button, Center, Group, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { phaseLabel } from '@sales-agent/shared/enums';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { IconHandStop, IconRobot } from '@tabler/icons-react';
import { type RefObject, useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { isRefreshFailing, ReconnectingNotice } from '../../../components/reconnecting-notice.tsx';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import {
  conversationQuery,
  deleteConversation,
  deleteMessages,
  editMessage,
  handBack,
  requestFollowUp,
  sendWrittenMessage,
  takeOver,
  updateConversationType,
  updatePhase,
  useConversationEvents,
  useMarkRead,
  useRebuildHistory,
} from '../api/conversations.ts';
import { AI_STATE_TEXT, aiState, isWorkingPhase, phaseWords } from '../lib/phase-words.ts';
import { AdminControls } from './admin-controls.tsx';
import { CallStatus } from './call-status.tsx';
import { ChatMessages } from './chat-messages.tsx';
import { MessageBox } from './message-box.tsx';
import { isAgentWorking } from './phase-options.ts';

/** What a visitor reads when the playbook has ended (issue 12: a notice and what happens next, not silence). */
export const CLOSING_TITLE = 'This conversation has ended';
export const CLOSING_TEXT =
  'Thank you for your time. Everything you wrote stays with our team, and someone will get back to you if a next step was agreed. To ask something else, start a new conversation.';

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
  const client = useQueryClient();
  const navigate = useNavigate();
  const auth = useAuth();
  const rebuild = useRebuildHistory(uuid);
  const [selected, setSelected] = useState<Set<number>>(new Set());
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

  const refresh = async () => {
    await client.invalidateQueries({ queryKey: ['conversation', uuid] });
    await client.invalidateQueries({ queryKey: ['conversations'] });
  };
  /** Runs a change, shows the notice, refreshes; false when it failed (the error is shown). */
  const run = async (action: () => Promise<{ message: string }>, notice?: string): Promise<boolean> => {
    try {
      const result = await action();
      toastSuccess(notice ?? result.message);
      await refresh();
      return true;
    } catch (err) {
      toastError(err);
      return false;
    }
  };

  const onSend = async (text: string) => {
    try {
      await sendWrittenMessage(uuid, text);
      await refresh();
      return true;
    } catch (err) {
      // An ended web chat answers 409: the refresh shows the closing notice in place of the box.
      if (err instanceof ApiError && err.status === 409) await refresh();
      toastError(err);
      return false;
    }
  };

  const onDeleteConversation = async () => {
    try {
      await deleteConversation(c.id);
      toastSuccess('Conversation deleted');
      client.removeQueries({ queryKey: ['conversation', uuid] });
      await client.invalidateQueries({ queryKey: ['conversations'] });
      if (props.onDeleted) props.onDeleted();
      else navigate(auth.isAuthenticated ? paths.conversationList : paths.conversationNew);
    } catch (err) {
      toastError(err);
    }
  };

  const onDeleteMessages = async () => {
    const ids = [...selected];
    if (await run(() => deleteMessages(c.id, ids), 'Messages deleted')) setSelected(new Set());
  };

  const onFollowUp = async () => {
    if (!(await confirmAction('Generate and send a follow-up message now?', { confirmLabel: 'Confirm', danger: false }))) return;
    await run(() => requestFollowUp(uuid));
  };

  const onRebuild = async () => {
    const confirmed = await confirmAction(
      'Rebuild the message history from the channel? The stored messages of this conversation are replaced by the channel’s copy.',
      { title: 'Rebuild history', confirmLabel: 'Confirm' },
    );
    if (confirmed) rebuild.mutate(c.id);
  };

  const admin = c.canAdminister;
  const state = aiState(c);
  const typeTitle = c.ConversationType?.title ?? (c.conversationTypeId ? `Type ${c.conversationTypeId}` : 'No type');
  const endedWebChat = c.ended && c.Prospect === null;
  const followUpReason = !isWorkingPhase(c.phase, c.phaseCount)
    ? `Follow-ups are written only in a working phase; this conversation is at “${phaseWords(c.phase, c.phaseCount)}”.`
    : c.aiPaused
      ? 'The AI is paused while a person answers: hand back to the AI first.'
      : null;

  const header = (
    <Stack gap="xs">
      {props.mode === 'pane' && (
        <Title order={2} fz="h4" data-testid="conversation-heading">
          {c.Prospect ? (c.Prospect.name ?? `Prospect ${c.Prospect.uuid.slice(0, 8)}`) : `Web chat ${c.uuid.slice(0, 8)}`}
        </Title>
      )}
      {c.Prospect && props.mode === 'page' && (
        <Text data-testid="prospect" size="sm">
          Prospect:{' '}
          {c.Prospect.name && (
            <Text span fw={600} data-testid="prospect-name">
              {c.Prospect.name}
            </Text>
          )}{' '}
          <Text span c="dimmed" ff="monospace" size="xs">
            {c.Prospect.uuid}
          </Text>
        </Text>
      )}
      <Group gap="xs">
        <Badge variant="light">{typeTitle}</Badge>
        {/* Visitors see no phase codes or internal labels (issue 12); the team does. */}
        {admin && (
          <Badge variant="outline" data-testid="phase-badge" title={phaseWords(c.phase, c.phaseCount)}>
            {phaseBadgeText(c.phase, c.phaseCount)}
          </Badge>
        )}
        {admin && c.Prospect && (
          <Badge color={AI_STATE_TEXT[state].color} variant="light" data-testid="ai-state">
            {AI_STATE_TEXT[state].label}
          </Badge>
        )}
        {admin && c.isDemoAgent && (
          <Badge color="orange" variant="light">
            Demo agent (offline)
          </Badge>
        )}
        {admin && <ChannelBadge type={c.Prospect?.messagingAccount.type} size="md" />}
        {admin && c.Prospect && (
          <Badge color="grape" variant="light" title="The messaging account the prospect wrote to">
            {c.Prospect.messagingAccount.pageName}
          </Badge>
        )}
      </Group>
      {admin && c.Prospect && <HandOff conversation={c} onChanged={refresh} />}
      <CallStatus uuid={uuid} />
    </Stack>
  );

  const controls = admin && (
        <AdminControls
          conversation={c}
          selectedCount={selected.size}
          onPhase={(phase) => void run(() => updatePhase(c.id, phase), 'Phase updated')}
          onType={(typeId) => void run(() => updateConversationType(c.id, typeId))}
          onDeleteConversation={onDeleteConversation}
          onSelectAll={(all) => setSelected(all ? new Set(c.messages.map((m) => m.id)) : new Set())}
          onDeleteMessages={onDeleteMessages}
          onFollowUp={onFollowUp}
          followUpDisabledReason={followUpReason}
          // Spec §6: the rebuild button only for ADMIN, and only where there is a prospect.
          onRebuild={auth.isAdmin && c.Prospect ? onRebuild : undefined}
          rebuilding={rebuild.isPending}
        />
  );

  const thread = (
    <Stack gap="sm">
      {controls &&
        (props.mode === 'pane' || props.foldControls ? (
          // In the inbox the thread comes first; the spec's controls fold away above it.
          <Box component="details" data-testid="admin-controls-toggle">
            <Box component="summary" style={{ cursor: 'pointer' }}>
              <Text span size="sm" fw={600}>
                Phase, type, follow-up, deletion
              </Text>
            </Box>
            <Box pt="xs">{controls}</Box>
          </Box>
        ) : (
          controls
        ))}
      <ChatMessages
        messages={c.messages}
        mediaUrl={(id) => `/api/conversation/${c.uuid}/messages/${id}/media`}
        initialMessage={c.ConversationType?.initialMessage ?? null}
        hasProspect={c.Prospect !== null}
        canAdminister={admin}
        selected={selected}
        onToggle={(id) =>
          setSelected((prev) => {
            const next = new Set(prev);
            if (next.has(id)) next.delete(id);
            else next.add(id);
            return next;
          })
        }
        onEdit={(messageId, text) => run(() => editMessage(c.id, messageId, text), 'Message updated successfully')}
      />
      {working && !endedWebChat && (
        <Group gap="xs" aria-live="polite" data-testid="agent-typing">
          <Loader type="dots" size="sm" aria-hidden />
          <Text size="sm" c="dimmed">
            {c.Prospect ? 'The AI is writing a reply…' : 'The agent is typing…'}
          </Text>
        </Group>
      )}
    </Stack>
  );

  const reply = endedWebChat ? (
    <Alert color="blue" title={CLOSING_TITLE} data-testid="closing-notice" role="status">
      <Stack gap="xs">
        <Text size="sm">{CLOSING_TEXT}</Text>
        <Group>
          <Button
            component={Link}
            to={
              props.newConversationHref ??
              (c.conversationTypeId ? `${paths.conversationNew}?conversationType=${c.conversationTypeId}` : paths.conversationNew)
            }
            size="xs"
          >
            Start a new conversation
          </Button>
        </Group>
      </Stack>
    </Alert>
  ) : props.viewOnly ? null : (
    <MessageBox
      // One box per conversation: the inbox switching conversations never carries text from one to another.
      key={uuid}
      draftKey={uuid}
      label="Message"
      onSend={onSend}
      inputRef={props.replyRef}
      placeholder={
        c.Prospect ? 'Reply as the business… (Enter sends; this pauses the AI)' : 'Write a message… (Enter sends, Shift+Enter adds a line)'
      }
    />
  );
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

/** 'Phase 1' for a working phase; 'Phase -2: Needs human intervention' etc. for the special codes. */
export function phaseBadgeText(phase: number, phaseCount: number): string {
  const label = phaseLabel(phase, phaseCount);
  return label === `Phase ${phase}` ? label : `Phase ${phase}: ${label}`;
}

/**
 * Take over / Hand back to the AI (issue 12). Taking over pauses the AI as a person's message does; handing
 * back resumes it at a chosen working phase (and it answers an unanswered prospect message at once).
 */
function HandOff({ conversation: c, onChanged }: { conversation: ConversationDetail; onChanged(): Promise<void> }) {
  const phases = c.ConversationType?.conversation_phases ?? [];
  const options = Array.from({ length: c.phaseCount }, (_, i) => ({
    value: String(i),
    label: `${phaseWords(i, c.phaseCount)}${phases.find((p) => p.index === i) ? `: ${phases.find((p) => p.index === i)!.prompt.slice(0, 40)}` : ''}`,
  }));
  const current = isWorkingPhase(c.phase, c.phaseCount) ? String(c.phase) : '0';
  const [phase, setPhase] = useState<string>(current);
  const [busy, setBusy] = useState(false);
  useEffect(() => setPhase(current), [current]);
  // -3 is the AI reading a burst of messages: it is working, not waiting for a person.
  const paused = c.aiPaused || (!isWorkingPhase(c.phase, c.phaseCount) && c.phase !== -3);

  const act = async (action: () => Promise<{ message: string }>) => {
    setBusy(true);
    try {
      toastSuccess((await action()).message);
      await onChanged();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Group gap="xs" align="flex-end" data-testid="hand-off">
      {!c.aiPaused && (
        <Button
          size="xs"
          variant="light"
          color="yellow"
          leftSection={<IconHandStop size={16} aria-hidden />}
          loading={busy}
          onClick={() => void act(() => takeOver(c.id))}
        >
          Take over
        </Button>
      )}
      {paused && c.phaseCount > 0 && (
        <>
          <Select
            size="xs"
            label="Resume at"
            data={options}
            value={phase}
            onChange={(v) => v !== null && setPhase(v)}
            allowDeselect={false}
            w={220}
          />
          <Button
            size="xs"
            variant="light"
            color="teal"
            leftSection={<IconRobot size={16} aria-hidden />}
            loading={busy}
            onClick={() => void act(() => handBack(c.id, Number(phase)))}
            data-testid="hand-back"
          >
            Hand back to the AI
          </Button>
        </>
      )}
    </Group>
  );
}
