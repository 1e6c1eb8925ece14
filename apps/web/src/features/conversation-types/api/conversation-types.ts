import { queryOptions } from '@tanstack/react-query';
import type {
  ConversationPhase,
  ConversationPhaseSaveBody,
  ConversationTypeDetail,
  ConversationTypeListItem,
  ConversationTypeSaveBody,
} from '@sales-agent/shared/schemas/conversation-type';
import type { testToolResponse } from '@sales-agent/shared/schemas/custom-tools';
import type { z } from 'zod';
import { api, apiRequest } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { messagingAccountKeys } from '../../messaging-accounts/api/keys.ts';

import { conversationTypeKeys } from './keys.ts';

export { conversationTypeKeys };

export type { ConversationPhase, ConversationTypeDetail, ConversationTypeListItem };

/** Spec §7.3 listt: for an ADMIN every item carries its prompts, config and phases. */
export const conversationTypesQuery = () =>
  queryOptions({
    queryKey: conversationTypeKeys.adminList(),
    queryFn: () => api.get<ConversationTypeListItem[]>('/api/conversation-type/listt'),
  });

export const conversationTypeQuery = (id: number | string) =>
  queryOptions({
    queryKey: conversationTypeKeys.detail(id),
    queryFn: () => api.get<ConversationTypeDetail>(`/api/conversation-type/${id}`),
  });

export const conversationPhasesQuery = (typeId: number | string) =>
  queryOptions({
    queryKey: conversationTypeKeys.phases(typeId),
    queryFn: () => api.get<ConversationPhase[]>(`/api/admin/conversation-phase/${typeId}/list`),
  });

export interface MessagingAccountOption {
  value: string;
  label: string;
}

/**
 * The accounts a type can use for outbound calls and messages. The list belongs to the messaging-accounts
 * screens; when it cannot be loaded the form still works, with no account to choose.
 */
export const messagingAccountOptionsQuery = () =>
  queryOptions({
    // Its own key: the permission form labels the same accounts differently.
    queryKey: messagingAccountKeys.options('conversation-type'),
    queryFn: async (): Promise<MessagingAccountOption[]> => {
      const list = await api.get<{ id: number; type: string; pageName: string }[]>('/api/admin/messaging-accounts/list');
      return list.map((a) => ({ value: String(a.id), label: `#${a.id} ${a.type} · ${a.pageName}` }));
    },
    retry: false,
  });

/** Creates (no id) or edits a type. */
export const useSaveConversationType = () =>
  useWrite({
    write: (body: ConversationTypeSaveBody) => api.post<{ conversationType: { id: number } }>('/api/admin/conversation-type/create-edit', body),
    refreshes: () => [conversationTypeKeys.all()],
    notice: 'Conversation type saved',
  });

/** Deletes a type with its phases; its conversations are kept without a type. */
export const useDeleteConversationType = () =>
  useWrite({
    write: (id: number) => api.post<{ message: string }>(`/api/admin/conversation-type/${id}/delete`),
    refreshes: () => [conversationTypeKeys.all()],
  });

/** Spec §4 duplicate, done by the server in one transaction (copy titled '[D] …' with config and phases). */
export const useDuplicateConversationType = () =>
  useWrite({
    write: (id: number) => api.post<{ conversationType: { id: number } }>(`/api/admin/conversation-type/${id}/duplicate`),
    refreshes: () => [conversationTypeKeys.all()],
    notice: 'Conversation type duplicated successfully',
  });

/** Spec §7.3: the config goes as the raw JSON text; answers the server's notice. */
export const saveConversationTypeConfig = async (id: number | string, text: string) =>
  (
    await apiRequest<{ message: string }>('POST', `/api/admin/conversation-type/${id}/config`, {
      body: text,
      headers: { 'content-type': 'application/json' },
    })
  ).data.message;

/** Creates (no id) or edits a phase; the type's phases refresh. */
export const useSaveConversationPhase = () =>
  useWrite({
    write: (body: ConversationPhaseSaveBody) => api.post<{ conversationPhase: ConversationPhase }>('/api/admin/conversation-phase/create-edit', body),
    refreshes: () => [conversationTypeKeys.all()],
    notice: 'Phase saved successfully!',
  });

/** Deletes a phase; nothing refreshes, the page reloads (spec §4/§9). */
export const useDeleteConversationPhase = () =>
  useWrite({ write: (id: number) => api.delete<{ message: string }>(`/api/admin/conversation-phase/${id}`), notice: 'Phase deleted successfully' });

/** The "Test tool" button (issue 22): runs a saved custom HTTP tool once with sample arguments; nothing is stored. */
export const useTestCustomTool = () =>
  useWrite({
    write: ({ typeId, name, args }: { typeId: number | string; name: string; args: Record<string, unknown> }) =>
      api.post<TestToolResult>(`/api/admin/conversation-type/${typeId}/tools/${encodeURIComponent(name)}/test`, { arguments: args }),
    refreshes: () => [],
  });
export type TestToolResult = z.infer<typeof testToolResponse>;
