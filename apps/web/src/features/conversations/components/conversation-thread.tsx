import { Box, Group, Loader, Stack, Text } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { type Dispatch, type SetStateAction, useState } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import {
  useDeleteConversation,
  useDeleteMessages,
  useEditMessage,
  useRebuildHistory,
  useRequestFollowUp,
  useUpdateConversationType,
  useUpdatePhase,
} from '../api/conversation-changes.ts';
import { isWorkingPhase, phaseWords } from '../lib/phase-words.ts';
import { AdminControls } from './admin-controls.tsx';
import { ChatMessages } from './chat-messages.tsx';
import { MessageSources } from '../../knowledge/components/message-sources.tsx';
import { isAgentWorking } from './phase-options.ts';

export interface ConversationThreadProps {
  conversation: ConversationDetail;
  /** Fold the admin controls behind a summary line (the inbox: the thread comes first). */
  foldControls: boolean;
  /** After the conversation was deleted; absent, the page goes to the list (or, signed out, a new chat). */
  onDeleted?(): void;
}

/**
 * The messages with, for the team, the controls that act on them (phase, type, follow-up, rebuild, deletion
 * of messages or of the conversation), and the typing line while the agent writes.
 */
export function ConversationThread({ conversation: c, foldControls, onDeleted }: ConversationThreadProps) {
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const endedWebChat = c.ended && c.Prospect === null;
  const working = isAgentWorking(c);
  const controls = c.canAdminister && <ConversationControls conversation={c} selected={selected} onSelect={setSelected} onDeleted={onDeleted} />;
  const editMessage = useEditMessage();
  const { isAdmin } = useAuth();

  return (
    <Stack gap="sm">
      {controls &&
        (foldControls ? (
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
        agentMessageFooter={
          isAdmin ? (id) => <MessageSources conversationUuid={c.uuid} messageCount={c.messages.length} messageId={id} /> : undefined
        }
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
        onEdit={(messageId, message) =>
          editMessage.mutateAsync({ conversation: c, messageId, message }).then(
            () => true,
            () => false,
          )
        }
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
}

/** The admin controls wired to the conversation's writes. */
function ConversationControls(props: {
  conversation: ConversationDetail;
  selected: Set<number>;
  onSelect: Dispatch<SetStateAction<Set<number>>>;
  onDeleted?(): void;
}) {
  const { conversation: c, selected, onSelect } = props;
  const navigate = useNavigate();
  const auth = useAuth();
  const updatePhase = useUpdatePhase();
  const updateType = useUpdateConversationType();
  const deleteConversation = useDeleteConversation();
  const deleteMessages = useDeleteMessages();
  const followUp = useRequestFollowUp();
  const rebuild = useRebuildHistory();

  const followUpReason = !isWorkingPhase(c.phase, c.phaseCount)
    ? `Follow-ups are written only in a working phase; this conversation is at “${phaseWords(c.phase, c.phaseCount)}”.`
    : c.aiPaused
      ? 'The AI is paused while a person answers: hand back to the AI first.'
      : null;

  const onFollowUp = async () => {
    if (!(await confirmAction('Generate and send a follow-up message now?', { confirmLabel: 'Confirm', danger: false }))) return;
    followUp.mutate({ conversation: c });
  };

  const onRebuild = async () => {
    const confirmed = await confirmAction(
      'Rebuild the message history from the channel? The stored messages of this conversation are replaced by the channel’s copy.',
      { title: 'Rebuild history', confirmLabel: 'Confirm' },
    );
    if (confirmed) rebuild.mutate(c);
  };

  return (
    <AdminControls
      conversation={c}
      selectedCount={selected.size}
      onPhase={(phase) => updatePhase.mutate({ conversation: c, phase })}
      onType={(conversationType) => updateType.mutate({ conversation: c, conversationType })}
      onDeleteConversation={() =>
        deleteConversation.mutate(c, {
          onSuccess: () => {
            if (props.onDeleted) props.onDeleted();
            else navigate(auth.isAuthenticated ? paths.conversationList : paths.conversationNew);
          },
        })
      }
      onSelectAll={(all) => onSelect(all ? new Set(c.messages.map((m) => m.id)) : new Set())}
      onDeleteMessages={() => {
        const deleted = [...selected];
        // Only the deleted ids leave the selection: a box ticked while the deletion was on its way stays ticked.
        deleteMessages.mutate(
          { conversation: c, messageIds: deleted },
          { onSuccess: () => onSelect((current) => new Set([...current].filter((id) => !deleted.includes(id)))) },
        );
      }}
      onFollowUp={onFollowUp}
      followUpDisabledReason={followUpReason}
      // Spec §6: the rebuild button only for ADMIN, and only where there is a prospect.
      onRebuild={auth.isAdmin && c.Prospect ? onRebuild : undefined}
      rebuilding={rebuild.isPending}
    />
  );
}
