import { queryOptions } from '@tanstack/react-query';
import type { UserMessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export const profileKeys = {
  profile: (email: string) => ['profile', email] as const,
  messagingAccounts: (email: string) => ['profile', email, 'messaging-accounts'] as const,
};

export interface Profile {
  id: number;
  email: string;
  role: 'ADMIN' | 'NORMAL';
  createdAt: string;
  /** False for an account Facebook login created, until a password is set. */
  hasPassword: boolean;
}

export type UserMessagingAccount = UserMessagingAccountView;

export const profileQuery = (email: string) =>
  queryOptions({ queryKey: profileKeys.profile(email), queryFn: () => api.get<Profile>(`/api/user/${encodeURIComponent(email)}`) });

export const userMessagingAccountsQuery = (email: string) =>
  queryOptions({
    queryKey: profileKeys.messagingAccounts(email),
    queryFn: async () =>
      (await api.get<{ messagingAccounts: UserMessagingAccount[] }>(`/api/user/${encodeURIComponent(email)}/messaging-accounts`)).messagingAccounts,
  });

/** Deletes the account and its conversations: for its owner (who connected it) or an ADMIN. */
export const useDeleteUserMessagingAccount = (email: string) =>
  useWrite({
    write: (id: number) => api.delete(`/api/messaging-accounts/${id}`),
    notice: 'Account deleted successfully',
    refreshes: () => [profileKeys.messagingAccounts(email)],
  });

/** Removes the signed-in user's own grant of an account; the account and its conversations stay. */
export const useRemoveFromMyAccounts = (email: string) =>
  useWrite({
    write: (messagingAccountId: number) => api.delete(`/api/user/messaging-accounts/${messagingAccountId}`),
    notice: 'Account removed from your accounts',
    refreshes: () => [profileKeys.messagingAccounts(email)],
  });
