import { queryOptions } from '@tanstack/react-query';
import type {
  AbComparison,
  CampaignFiguresResult,
  CostResult,
  FollowUpsResult,
  FunnelResult,
  HandoffsResult,
  OutcomesResult,
  SpeedResult,
  VoiceResult,
} from '@sales-agent/shared/schemas/analytics';
import type { AbTest, AbTestList, AbTestStartBody } from '@sales-agent/shared/schemas/ab-tests';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export type { AbComparison, AbTest, CampaignFiguresResult, CostResult, FollowUpsResult, HandoffsResult, OutcomesResult, VoiceResult, AbTestList, FunnelResult, SpeedResult };

/** The screen's filters, as they sit in the query string (docs/analytics.md). */
export interface AnalyticsFilters {
  conversationType: string;
  from: string;
  to: string;
  channel: string;
  /** A messaging account id, or '' for all. */
  messagingAccount: string;
}

const params = (f: AnalyticsFilters) => ({
  conversationType: f.conversationType,
  from: f.from,
  to: f.to,
  ...(f.channel ? { channel: f.channel } : {}),
  ...(f.messagingAccount ? { messagingAccount: f.messagingAccount } : {}),
});

export const analyticsKeys = { all: () => ['analytics'] as const };

/** One figure of the screen: GET /api/admin/analytics/<name> with the filters, once a type is chosen. */
const figureQuery = <T,>(name: string, f: AnalyticsFilters) =>
  queryOptions({
    queryKey: [...analyticsKeys.all(), name, f],
    queryFn: () => api.get<T>(`/api/admin/analytics/${name}`, params(f)),
    enabled: f.conversationType !== '',
  });

export const funnelQuery = (f: AnalyticsFilters) => figureQuery<FunnelResult>('funnel', f);

export const speedQuery = (f: AnalyticsFilters) => figureQuery<SpeedResult>('speed', f);

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

export const abComparisonQuery = (f: AnalyticsFilters) => figureQuery<AbComparison>('ab-test', f);

/** The type's A/B tests (ADMIN only: /api/admin/conversation-type/{id}/ab-test). */
export const abTestsQuery = (typeId: string) =>
  queryOptions({
    queryKey: [...analyticsKeys.all(), 'ab-tests', typeId],
    queryFn: () => api.get<AbTestList>(`/api/admin/conversation-type/${typeId}/ab-test`),
    enabled: typeId !== '',
  });

export const useStartAbTest = (typeId: string) =>
  useWrite({
    write: (body: AbTestStartBody) => api.post<AbTest>(`/api/admin/conversation-type/${typeId}/ab-test`, body),
    refreshes: () => [analyticsKeys.all()],
    notice: 'A/B test started',
  });

export const useStopAbTest = (typeId: string) =>
  useWrite({
    write: (winner: 'A' | 'B') => api.post<AbTest>(`/api/admin/conversation-type/${typeId}/ab-test/stop`, { winner }),
    refreshes: () => [analyticsKeys.all()],
    notice: 'A/B test stopped: new conversations start on the chosen version',
  });

export const costQuery = (f: AnalyticsFilters) => figureQuery<CostResult>('cost', f);

export const outcomesQuery = (f: AnalyticsFilters) => figureQuery<OutcomesResult>('outcomes', f);

export const voiceQuery = (f: AnalyticsFilters) => figureQuery<VoiceResult>('voice', f);

export const handoffsQuery = (f: AnalyticsFilters) => figureQuery<HandoffsResult>('handoffs', f);
export const followUpsQuery = (f: AnalyticsFilters) => figureQuery<FollowUpsResult>('follow-ups', f);

/** Per campaign of the type: its contacts finished in the range by outcome (ADMIN only; docs/analytics.md "Campaigns"). */
export const campaignFiguresQuery = (f: AnalyticsFilters) => figureQuery<CampaignFiguresResult>('campaigns', f);
