import { Alert, Badge, Card, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { phaseLabel } from '@sales-agent/shared/enums';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
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
  requestFollowUp,
  sendWrittenMessage,
  updateConversationType,
  updatePhase,
  useConversationEvents,
  useRebuildHistory,
} from '../api/conversations.ts';
import { AdminControls } from '../components/admin-controls.tsx';
import { CallStatus } from '../components/call-status.tsx';
import { ChatMessages } from '../components/chat-messages.tsx';
import { MessageBox } from '../components/message-box.tsx';
import { isAgentWorking } from '../components/phase-options.ts';

/** Spec §2.13 conversation detail: bubbles, admin controls, message box; live and polled every 10 s. */
export default function ConversationDetailPage() {
  const { uuid = '' } = useParams();
  const [searchParams] = useSearchParams();
  const viewOnly = searchParams.get('viewOnly') === 'true';
  const query = useQuery(conversationQuery(uuid));
  useConversationEvents(uuid, query.isSuccess);
  const client = useQueryClient();
  const navigate = useNavigate();
  const auth = useAuth();
  const rebuild = useRebuildHistory(uuid);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const bottom = useRef<HTMLDivElement>(null);
  const lastId = query.data?.messages.at(-1)?.id;

  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [lastId]);

  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading conversation" />
      </Center>
    );
  }
  if (query.isError) {
    const missing = query.error instanceof ApiError && query.error.status === 404;
    return (
      <Alert color={missing ? 'gray' : 'red'} title="Conversation">
        {missing ? 'No conversation found' : `Error: ${errorMessage(query.error)}`}
      </Alert>
    );
  }
  const c = query.data;
  if (!c) return <Alert title="Conversation">No conversation found</Alert>;

  const refresh = () => client.invalidateQueries({ queryKey: ['conversation', uuid] });
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
      toastError(err);
      return false;
    }
  };

  const onDeleteConversation = async () => {
    try {
      await deleteConversation(c.id);
      toastSuccess('Conversation deleted');
      client.removeQueries({ queryKey: ['conversation', uuid] });
      navigate(auth.isAuthenticated ? paths.conversationList : paths.conversationNew);
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

  const working = isAgentWorking(c);
  const typeTitle = c.ConversationType?.title ?? (c.conversationTypeId ? `Type ${c.conversationTypeId}` : 'No type');

  return (
    <Stack maw={900} mx="auto">
      <PageTitle>Conversation</PageTitle>
      {c.Prospect && (
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
        <Badge variant="outline" data-testid="phase-badge">
          {phaseBadgeText(c.phase, c.phaseCount)}
        </Badge>
        {c.isDemoAgent && (
          <Badge color="orange" variant="light">
            Demo agent (offline)
          </Badge>
        )}
        <ChannelBadge type={c.Prospect?.messagingAccount.type} size="md" />
        {c.Prospect && (
          <Badge color="grape" variant="light" title="The messaging account the prospect wrote to">
            {c.Prospect.messagingAccount.pageName}
          </Badge>
        )}
        {c.aiPaused && (
          <Badge color="yellow" variant="light">
            AI paused (a person replied)
          </Badge>
        )}
      </Group>
      <CallStatus uuid={uuid} />
      {c.canAdminister && (
        <AdminControls
          conversation={c}
          selectedCount={selected.size}
          onPhase={(phase) => void run(() => updatePhase(c.id, phase), 'Phase updated')}
          onType={(typeId) => void run(() => updateConversationType(c.id, typeId))}
          onDeleteConversation={onDeleteConversation}
          onSelectAll={(all) => setSelected(all ? new Set(c.messages.map((m) => m.id)) : new Set())}
          onDeleteMessages={onDeleteMessages}
          onFollowUp={onFollowUp}
          // Spec §6: the rebuild button only for ADMIN, and only where there is a prospect.
          onRebuild={auth.isAdmin && c.Prospect ? onRebuild : undefined}
          rebuilding={rebuild.isPending}
        />
      )}
      <Card withBorder>
        <ChatMessages
          messages={c.messages}
          initialMessage={c.ConversationType?.initialMessage ?? null}
          hasProspect={c.Prospect !== null}
          canAdminister={c.canAdminister}
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
        {working && (
          <Group gap="xs" mt="sm" aria-live="polite">
            <Loader type="dots" size="sm" />
            <Text size="sm" c="dimmed">
              The agent is writing…
            </Text>
          </Group>
        )}
        <div ref={bottom} />
      </Card>
      {!viewOnly && <MessageBox label="Message" onSend={onSend} />}
    </Stack>
  );
}

/** 'Phase 1' for a working phase; 'Phase -2: Needs human intervention' etc. for the special codes. */
function phaseBadgeText(phase: number, phaseCount: number): string {
  const label = phaseLabel(phase, phaseCount);
  return label === `Phase ${phase}` ? label : `Phase ${phase}: ${label}`;
}
