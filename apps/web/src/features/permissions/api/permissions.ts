import { queryOptions } from '@tanstack/react-query';
import type { PermissionCreateBody, PermissionView } from '@sales-agent/shared/schemas/messaging-account';
import { api } from '../../../lib/api-client.ts';

export type { PermissionView };

export const permissionsQuery = () =>
  queryOptions({
    queryKey: ['user-messaging-accounts'],
    queryFn: () => api.get<PermissionView[]>('/api/admin/user-messaging-accounts/list'),
  });

export const grantPermission = (body: PermissionCreateBody) =>
  api.post<{ message: string }>('/api/admin/user-messaging-accounts/create', body);

export const revokePermission = (id: number) => api.delete<{ message: string }>(`/api/admin/user-messaging-accounts/${id}`);

/** The accounts to choose from on the create form (id and page name only). */
export const accountOptionsQuery = () =>
  queryOptions({
    queryKey: ['messaging-accounts', 'options'],
    queryFn: async () =>
      (await api.get<{ id: number; type: string; pageName: string }[]>('/api/admin/messaging-accounts/list')).map((a) => ({
        value: String(a.id),
        label: `${a.pageName} (${a.type}, #${a.id})`,
      })),
  });
