import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { OptOutAuditItem, OptOutAuditList } from '@sales-agent/shared/schemas/compliance';
import { api } from '../../../lib/api-client.ts';

export type { OptOutAuditItem };

export const optOutKeys = { list: (filter: OptOutFilter) => ['compliance', 'opt-outs', filter] as const };

export interface OptOutFilter {
  activeOnly: boolean;
  address: string;
  page: number;
}

export const OPT_OUT_PAGE_SIZE = 50;

/** The ADMIN's audit list of opt-outs (issue 23), newest first. */
export const optOutsQuery = (filter: OptOutFilter) =>
  queryOptions({
    queryKey: optOutKeys.list(filter),
    queryFn: () =>
      api.get<OptOutAuditList>('/api/admin/compliance/opt-outs', {
        ...(filter.activeOnly ? { active: 'true' } : {}),
        ...(filter.address.trim() ? { address: filter.address.trim() } : {}),
        limit: String(OPT_OUT_PAGE_SIZE),
        offset: String((filter.page - 1) * OPT_OUT_PAGE_SIZE),
      }),
    placeholderData: keepPreviousData,
  });
