import { queryOptions } from '@tanstack/react-query';
import type { PermissionCreateBody, PermissionView } from '@sales-agent/shared/schemas/messaging-account';
import { api } from '../../../lib/api-client.ts';
import { messagingAccountKeys } from '../../messaging-accounts/api/messaging-accounts.ts';

export const permissionKeys = { all: () => ['user-messaging-accounts'] as const };

export type { PermissionView };

export const permissionsQuery = () =>
  queryOptions({
    queryKey: permissionKeys.all(),
    queryFn: () => api.get<PermissionView[]>('/api/admin/user-messaging-accounts/list'),
  });

export const grantPermission = (body: PermissionCreateBody) =>
  api.post<{ message: string }>('/api/admin/user-messaging-accounts/create', body);

export const revokePermission = (id: number) => api.delete<{ message: string }>(`/api/admin/user-messaging-accounts/${id}`);

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
