import { queryOptions } from '@tanstack/react-query';
import type { PermissionCreateBody, PermissionView } from '@sales-agent/shared/schemas/messaging-account';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { messagingAccountKeys } from '../../messaging-accounts/api/messaging-accounts.ts';

export const permissionKeys = { all: () => ['user-messaging-accounts'] as const };

export type { PermissionView };

export const permissionsQuery = () =>
  queryOptions({
    queryKey: permissionKeys.all(),
    queryFn: () => api.get<PermissionView[]>('/api/admin/user-messaging-accounts/list'),
  });

export const useGrantPermission = () =>
  useWrite({
    write: (body: PermissionCreateBody) => api.post<{ message: string }>('/api/admin/user-messaging-accounts/create', body),
    refreshes: () => [permissionKeys.all()],
  });

/** The list refreshes whether the revoke worked or not. */
export const useRevokePermission = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/admin/user-messaging-accounts/${id}`),
    refreshes: () => [permissionKeys.all()],
    refreshAfterFailure: true,
  });

/** The accounts to choose from on the create form (id and page name only). */
export const accountOptionsQuery = () =>
  queryOptions({
    // Its own key: the conversation type form labels the same accounts differently.
    queryKey: messagingAccountKeys.options('permission'),
    queryFn: async () =>
      (await api.get<{ id: number; type: string; pageName: string }[]>('/api/admin/messaging-accounts/list')).map((a) => ({
        value: String(a.id),
        label: `${a.pageName} (${a.type}, #${a.id})`,
      })),
  });
