import { queryOptions } from '@tanstack/react-query';
import type { FunnelResult, SpeedResult } from '@sales-agent/shared/schemas/analytics';
import { api } from '../../../lib/api-client.ts';

export type { FunnelResult, SpeedResult };

/** The screen's filters, as they sit in the query string (docs/analytics.md). */
export interface AnalyticsFilters {
  conversationType: string;
  from: string;
  to: string;
  channel: string;
}

const params = (f: AnalyticsFilters) => ({
  conversationType: f.conversationType,
  from: f.from,
  to: f.to,
  ...(f.channel ? { channel: f.channel } : {}),
});

export const analyticsKeys = { all: () => ['analytics'] as const };

export const funnelQuery = (f: AnalyticsFilters) =>
  queryOptions({
    queryKey: [...analyticsKeys.all(), 'funnel', f],
    queryFn: () => api.get<FunnelResult>('/api/admin/analytics/funnel', params(f)),
    enabled: f.conversationType !== '',
  });

export const speedQuery = (f: AnalyticsFilters) =>
  queryOptions({
    queryKey: [...analyticsKeys.all(), 'speed', f],
    queryFn: () => api.get<SpeedResult>('/api/admin/analytics/speed', params(f)),
    enabled: f.conversationType !== '',
  });

export interface StepConversation {
  id: number;
  uuid: string;
  phase: number;
  maxPhase: number | null;
  createdAt: string;
}

export const stepConversationsQuery = (f: AnalyticsFilters, step: string | null) =>
  queryOptions({
    queryKey: [...analyticsKeys.all(), 'step', f, step],
    queryFn: () =>
      api.get<{ conversations: StepConversation[] }>('/api/admin/analytics/funnel/conversations', { ...params(f), step: step ?? '' }),
    enabled: f.conversationType !== '' && step !== null,
  });
