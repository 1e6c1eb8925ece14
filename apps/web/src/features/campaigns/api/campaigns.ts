import { queryOptions } from '@tanstack/react-query';
import type { CampaignCreateBody, CampaignDetail, CampaignSummary } from '@sales-agent/shared/schemas/campaigns';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export type { CampaignDetail, CampaignSummary };

/** Query keys of the campaigns screens (issue 23 item 4). */
export const campaignKeys = {
  list: () => ['campaigns'] as const,
  detail: (id: number) => ['campaigns', id] as const,
};

/** A campaign with contacts in progress is polled, so its progress moves on screen without a reload. */
const live = (c: CampaignSummary | undefined) => (c && (c.status === 'running' || c.counts.calling > 0) ? 2000 : false);

export const campaignsQuery = () =>
  queryOptions({
    queryKey: campaignKeys.list(),
    queryFn: () => api.get<CampaignSummary[]>('/api/admin/campaigns'),
    refetchInterval: (query) => (query.state.data?.some((c) => live(c)) ? 2000 : false),
  });

export const campaignQuery = (id: number) =>
  queryOptions({
    queryKey: campaignKeys.detail(id),
    queryFn: () => api.get<CampaignDetail>(`/api/admin/campaigns/${id}`),
    refetchInterval: (query) => live(query.state.data),
  });

export const campaignExportUrl = (id: number) => `/api/admin/campaigns/${id}/export`;

export const useCreateCampaign = () =>
  useWrite({
    write: (body: CampaignCreateBody) =>
      api.post<{ id: number; contacts: number; skipped: { row: number; phone: string; reason: string }[] }>('/api/admin/campaigns', body),
    refreshes: () => [campaignKeys.list()],
    notice: 'Campaign created. Start it when you are ready.',
  });

export type CampaignAction = 'start' | 'pause' | 'stop';

export const useCampaignAction = () =>
  useWrite({
    write: ({ id, action }: { id: number; action: CampaignAction }) => api.post<CampaignSummary>(`/api/admin/campaigns/${id}/${action}`),
    refreshes: ({ id }) => [campaignKeys.list(), campaignKeys.detail(id)],
    refreshAfterFailure: true,
  });
