import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { OptOutAuditItem, OptOutAuditList } from '@sales-agent/shared/schemas/compliance';
import { api } from '../../../lib/api-client.ts';
import { type AuditFilter, auditParams } from './audit-page.ts';

export type { OptOutAuditItem };

export const optOutKeys = { list: (filter: OptOutFilter) => ['compliance', 'opt-outs', filter] as const };

export interface OptOutFilter extends AuditFilter {
  activeOnly: boolean;
}

/** The ADMIN's audit list of opt-outs (issue 23), newest first. */
export const optOutsQuery = (filter: OptOutFilter) =>
  queryOptions({
    queryKey: optOutKeys.list(filter),
    queryFn: () =>
      api.get<OptOutAuditList>('/api/admin/compliance/opt-outs', { ...(filter.activeOnly ? { active: 'true' } : {}), ...auditParams(filter) }),
    placeholderData: keepPreviousData,
  });
