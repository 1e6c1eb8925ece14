import { queryOptions } from '@tanstack/react-query';
import type { ConversationNote, NotificationList } from '@sales-agent/shared/schemas/conversation';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import type { ConversationRef } from './conversation-changes.ts';
import { conversationKeys } from './conversations.ts';

/**
 * The team's workspace on a conversation (issue 24): assignee, resolve/reopen, snooze, private notes, and the
 * signed-in user's notifications. Writes go through useWrite (toast + refresh of the conversation and lists).
 */
export const workspaceKeys = {
  assignees: (id: number) => ['conversation-assignees', id] as const,
  notifications: conversationKeys.notifications,
};

export const assigneesQuery = (id: number) =>
  queryOptions({
    queryKey: workspaceKeys.assignees(id),
    queryFn: () => api.get<{ email: string }[]>(`/api/conversation/${id}/assignees`),
    staleTime: 30_000,
  });

export const notificationsQuery = () =>
  queryOptions({
    queryKey: workspaceKeys.notifications(),
    queryFn: () => api.get<NotificationList>('/api/notifications'),
    refetchInterval: 30_000,
  });

type Change = { assigneeEmail?: string | null; state?: 'open' | 'resolved'; snoozedUntil?: string | null };

/** PATCH /api/conversation/{id} with assigneeEmail / state / snoozedUntil. */
export const useWorkspaceChange = () =>
  useWrite({
    write: ({ conversation, change }: { conversation: ConversationRef; change: Change }) =>
      api.patch<{ message: string }>(`/api/conversation/${conversation.id}`, change),
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid), conversationKeys.lists()],
  });

/** POST /api/conversation/{id}/notes: a private note (never sent). */
export const useAddNote = () =>
  useWrite({
    write: ({ conversation, text }: { conversation: ConversationRef; text: string }) =>
      api.post<ConversationNote>(`/api/conversation/${conversation.id}/notes`, { text }),
    notice: 'Note added',
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid)],
  });

export const useMarkNotificationsRead = () =>
  useWrite({
    write: () => api.post<{ message: string }>('/api/notifications/read'),
    notice: '',
    refreshes: () => [workspaceKeys.notifications()],
  });
