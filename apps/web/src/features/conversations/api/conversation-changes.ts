import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../../lib/api-client.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { conversationKeys } from './conversations.ts';

/**
 * The writes on one conversation, as mutation hooks (issue 20): each says what it changed in a toast (or the
 * error, in words) and refreshes the conversation and the lists through `conversationKeys`. Components call
 * `mutate()`; the ones whose callers must know whether it worked (a box that clears on success) use
 * `mutateAsync` and catch.
 */

/** Which conversation a write is about: its id for the route, its uuid for the cache. */
export interface ConversationRef {
  id: number;
  uuid: string;
}

type Answer = { message: string };

/** Refreshes a conversation (and what hangs under its key, the call) and every list it may appear in. */
async function refreshConversation(client: QueryClient, uuid: string) {
  await client.invalidateQueries({ queryKey: conversationKeys.detail(uuid) });
  await client.invalidateQueries({ queryKey: conversationKeys.lists() });
}

/**
 * The shape most writes share: on success the toast (`notice`, else the server's sentence) and the refresh;
 * on failure the error's toast.
 */
function useConversationChange<TVars extends { conversation: ConversationRef }>(
  write: (vars: TVars) => Promise<Answer>,
  notice?: string,
) {
  return useWrite({
    write,
    notice,
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid), conversationKeys.lists()],
  });
}

/** Take over (issue 12): the AI pauses as when a person writes, without sending anything. */
export const useTakeOver = () =>
  useConversationChange(({ conversation }: { conversation: ConversationRef }) =>
    api.post<Answer & { phase: number; aiPaused: boolean }>(`/api/conversation/${conversation.id}/take-over`),
  );

/** Hand back to the AI (issue 12) at a working phase; absent, the phase the conversation was in. */
export const useHandBack = () =>
  useConversationChange(({ conversation, phase }: { conversation: ConversationRef; phase?: number }) =>
    api.post<Answer & { phase: number; aiPaused: boolean }>(
      `/api/conversation/${conversation.id}/hand-back`,
      phase === undefined ? {} : { phase },
    ),
  );

export const useUpdatePhase = () =>
  useConversationChange(
    ({ conversation, phase }: { conversation: ConversationRef; phase: number }) =>
      api.patch<Answer>(`/api/conversation/${conversation.id}`, { phase }),
    'Phase updated',
  );

export const useUpdateConversationType = () =>
  useConversationChange(({ conversation, conversationType }: { conversation: ConversationRef; conversationType: number }) =>
    api.patch<Answer>(`/api/conversation/${conversation.id}`, { conversationType }),
  );

export const useDeleteMessages = () =>
  useConversationChange(
    ({ conversation, messageIds }: { conversation: ConversationRef; messageIds: number[] }) =>
      api.delete<Answer>(`/api/conversation/${conversation.id}/messages`, { messageIds }),
    'Messages deleted',
  );

export const useEditMessage = () =>
  useConversationChange(
    ({ conversation, messageId, message }: { conversation: ConversationRef; messageId: number; message: string }) =>
      api.patch<Answer>(`/api/conversation/${conversation.id}/message/${messageId}`, { message }),
    'Message updated successfully',
  );

export const useRequestFollowUp = () =>
  useConversationChange(({ conversation }: { conversation: ConversationRef }) =>
    api.post<Answer>(`/api/conversation/${conversation.uuid}/follow-up`),
  );

/**
 * A written message (the visitor's or the team's reply). No toast on success: the message appearing is the
 * answer. An ended web chat answers 409: the refresh then shows the closing notice in place of the box.
 */
export function useSendMessage(uuid: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (message: string) => api.post<Answer>(`/api/conversation/${uuid}/written-message`, { message }),
    onSuccess: () => refreshConversation(client, uuid),
    onError: async (err) => {
      if (err instanceof ApiError && err.status === 409) await refreshConversation(client, uuid);
      toastError(err);
    },
  });
}

/** Deleting a conversation: its cached detail goes (nothing refetches a deleted one) and the lists refresh. */
export function useDeleteConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (conversation: ConversationRef) => api.delete<Answer>(`/api/conversation/${conversation.id}`),
    onSuccess: async (_result, conversation) => {
      toastSuccess('Conversation deleted');
      client.removeQueries({ queryKey: conversationKeys.detail(conversation.uuid) });
      await client.invalidateQueries({ queryKey: conversationKeys.lists() });
    },
    onError: (err) => toastError(err),
  });
}

/** Spec §8.2: the notice after a rebuild. */
export const REBUILD_SUCCESS = 'Message history rebuilt successfully';

/**
 * Rebuild history (spec §2.13, §7.6; ADMIN, prospect conversations): reads the thread back from the channel
 * and replaces the stored messages. Channels without a history API answer 409 with a sentence, shown as is.
 */
export function useRebuildHistory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (conversation: ConversationRef) =>
      api.post<{ messages: number }>(`/api/admin/conversation/${conversation.id}/messages/rebuild`),
    onSuccess: async (_result, conversation) => {
      toastSuccess(REBUILD_SUCCESS);
      await client.invalidateQueries({ queryKey: conversationKeys.detail(conversation.uuid) });
    },
    onError: (err) => toastError(err),
  });
}
