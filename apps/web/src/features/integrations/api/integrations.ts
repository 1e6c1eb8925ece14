import { queryOptions } from '@tanstack/react-query';
import type {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyView,
  WebhookCreateBody,
  WebhookCreated,
  WebhookDeliveryView,
  WebhookEndpointView,
} from '@sales-agent/shared/schemas/integrations';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export type { ApiKeyCreated, ApiKeyView, WebhookCreated, WebhookDeliveryView, WebhookEndpointView };

/** Query keys of the integrations screen (issue 27). */
export const integrationKeys = {
  apiKeys: () => ['integrations', 'api-keys'] as const,
  webhooks: () => ['integrations', 'webhooks'] as const,
  deliveries: (id: number) => ['integrations', 'webhooks', id, 'deliveries'] as const,
};

export const apiKeysQuery = () =>
  queryOptions({ queryKey: integrationKeys.apiKeys(), queryFn: () => api.get<ApiKeyView[]>('/api/admin/api-keys') });

export const webhooksQuery = () =>
  queryOptions({ queryKey: integrationKeys.webhooks(), queryFn: () => api.get<WebhookEndpointView[]>('/api/admin/webhooks') });

/** Polled while a delivery is pending, so its status moves on screen without a reload. */
export const deliveriesQuery = (id: number) =>
  queryOptions({
    queryKey: integrationKeys.deliveries(id),
    queryFn: () => api.get<WebhookDeliveryView[]>(`/api/admin/webhooks/${id}/deliveries`),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'PENDING') ? 1000 : false),
  });

export const useCreateApiKey = () =>
  useWrite({
    write: (body: ApiKeyCreateBody) => api.post<ApiKeyCreated>('/api/admin/api-keys', body),
    refreshes: () => [integrationKeys.apiKeys()],
    notice: 'API key created. Copy it now: it is not shown again.',
  });

export const useRevokeApiKey = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/admin/api-keys/${id}`),
    refreshes: () => [integrationKeys.apiKeys()],
  });

export const useCreateWebhook = () =>
  useWrite({
    write: (body: WebhookCreateBody) => api.post<WebhookCreated>('/api/admin/webhooks', body),
    refreshes: () => [integrationKeys.webhooks()],
    notice: 'Endpoint subscribed. Copy its signing secret now: it is not shown again.',
  });

export const useSetWebhookEnabled = () =>
  useWrite({
    write: ({ id, enabled }: { id: number; enabled: boolean }) => api.patch<WebhookEndpointView>(`/api/admin/webhooks/${id}`, { enabled }),
    refreshes: ({ id }) => [integrationKeys.webhooks(), integrationKeys.deliveries(id)],
    notice: 'Endpoint updated.',
  });

export const useDeleteWebhook = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/admin/webhooks/${id}`),
    refreshes: () => [integrationKeys.webhooks()],
  });

export const useSendTestEvent = () =>
  useWrite({
    write: (id: number) => api.post<{ deliveryId: number }>(`/api/admin/webhooks/${id}/test`),
    refreshes: (id) => [integrationKeys.deliveries(id)],
    notice: 'Test event queued.',
  });

export const useResendDelivery = () =>
  useWrite({
    write: ({ id, deliveryId }: { id: number; deliveryId: number }) =>
      api.post<{ deliveryId: number }>(`/api/admin/webhooks/${id}/deliveries/${deliveryId}/resend`),
    refreshes: ({ id }) => [integrationKeys.deliveries(id)],
    notice: 'Delivery queued again.',
  });
