import { queryOptions } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import type { MessagingAccountSaveBody, MessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { truncate } from '@sales-agent/shared/truncate';
import { api, apiRequest } from '../../../lib/api-client.ts';
import { conversationTypeKeys } from '../../conversation-types/api/keys.ts';

import { messagingAccountKeys } from './keys.ts';

export { messagingAccountKeys };

export type { MessagingAccountView };

export const messagingAccountsQuery = () =>
  queryOptions({
    queryKey: messagingAccountKeys.all(),
    queryFn: () => api.get<MessagingAccountView[]>('/api/admin/messaging-accounts/list'),
  });

export const messagingAccountQuery = (id: number | string) =>
  queryOptions({
    queryKey: messagingAccountKeys.detail(id),
    queryFn: () => api.get<MessagingAccountView>(`/api/admin/messaging-accounts/${id}`),
  });

export const saveMessagingAccount = (body: MessagingAccountSaveBody) =>
  api.post<{ message: string; messagingAccount: { id: number } }>('/api/admin/messaging-accounts/create-edit', body);

/** Spec §7.4: the config goes as the raw JSON text. */
export const saveMessagingAccountConfig = async (id: number | string, text: string) =>
  (
    await apiRequest<{ message: string }>('POST', `/api/admin/messaging-accounts/${id}/config`, {
      body: text,
      headers: { 'content-type': 'application/json' },
    })
  ).data.message;

/** Spec §7.1: deletes the account and every conversation held on it. */
export const deleteMessagingAccount = (id: number) => api.delete<{ message: string }>(`/api/messaging-accounts/${id}`);

export interface ConversationTypeOption {
  value: string;
  label: string;
}

/** The conversation types for the account form's select (spec §7.3 listt), labels cut to 70 characters. */
export const conversationTypeOptionsQuery = () =>
  queryOptions({
    queryKey: conversationTypeKeys.options(),
    queryFn: async (): Promise<ConversationTypeOption[]> => {
      const list = await api.get<{ id: number; title?: string | null; label?: string }[]>('/api/conversation-type/listt');
      return list.map((t) => ({ value: String(t.id), label: `#${t.id} ${truncate(t.label || t.title || '', TRUNCATE.typeSelectLabel)}`.trim() }));
    },
  });
