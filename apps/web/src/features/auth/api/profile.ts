import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export interface Profile {
  id: number;
  email: string;
  role: 'ADMIN' | 'NORMAL';
  createdAt: string;
}

export interface UserMessagingAccount {
  id: number;
  messagingAccountId: number;
  messagingAccount: { id: number; type: string; pageId: string; pageName: string; expirationDate: string | null };
}

export const profileQuery = (email: string) =>
  queryOptions({ queryKey: ['profile', email], queryFn: () => api.get<Profile>(`/api/user/${encodeURIComponent(email)}`) });

export const userMessagingAccountsQuery = (email: string) =>
  queryOptions({
    queryKey: ['profile', email, 'messaging-accounts'],
    queryFn: async () =>
      (await api.get<{ messagingAccounts: UserMessagingAccount[] }>(`/api/user/${encodeURIComponent(email)}/messaging-accounts`)).messagingAccounts,
  });

export const deleteMessagingAccount = (id: number) => api.delete(`/api/messaging-accounts/${id}`);
