import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import {
  CONSENT_IMPORT_FIELD,
  type ConsentAuditItem,
  type ConsentAuditList,
  type ConsentImportResult,
} from '@sales-agent/shared/schemas/compliance';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { type AuditFilter, auditParams } from './audit-page.ts';

export type { ConsentAuditItem, ConsentImportResult };

export const consentKeys = {
  all: () => ['compliance', 'consents'] as const,
  list: (filter: AuditFilter) => ['compliance', 'consents', filter] as const,
};

/** The ADMIN's audit list of consent changes (WhatsApp opt-ins and withdrawals), newest first. */
export const consentsQuery = (filter: AuditFilter) =>
  queryOptions({
    queryKey: consentKeys.list(filter),
    queryFn: () => api.get<ConsentAuditList>('/api/admin/compliance/consents', auditParams(filter)),
    placeholderData: keepPreviousData,
  });

/** WhatsApp opt-ins from a CSV (`phone`, optional `note`); the page shows the answer itself (no toast). */
export const useImportConsents = () =>
  useWrite({
    write: (file: File) => {
      const form = new FormData();
      form.append(CONSENT_IMPORT_FIELD, file);
      return api.post<ConsentImportResult>('/api/admin/compliance/consents/import', form);
    },
    refreshes: () => [consentKeys.all()],
    notice: '',
  });
