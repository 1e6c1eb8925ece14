import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { CrmContactsAnswer, CrmPipelinesAnswer } from '@sales-agent/shared/schemas/crm';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { conversationTypeKeys } from './conversation-types.ts';

export type { CrmContactsAnswer, CrmPipelinesAnswer };

/** A cursor of the contacts list (spec §4): the previous answer's meta.startAfter and meta.startAfterId. */
export interface ContactsCursor {
  startAfter: string;
  startAfterId: string;
}

/** Spec §7.3: the GoHighLevel pipelines (with stages) of a CRM-linked type. */
export const pipelinesQuery = (typeId: string) =>
  queryOptions({
    queryKey: conversationTypeKeys.crmPipelines(typeId),
    queryFn: () => api.get<CrmPipelinesAnswer>(`/api/admin/conversation-type/${typeId}/pipelines`),
    // A refused token or a missing configuration will not fix itself by asking again.
    retry: false,
  });

export interface ContactsPage {
  pipelineId: string;
  stageId: string | null;
  limit: number;
  cursor: ContactsCursor | null;
}

/** Spec §7.3: one page of the pipeline's (or stage's) contacts. */
export const contactsQuery = (typeId: string, page: ContactsPage) =>
  queryOptions({
    queryKey: conversationTypeKeys.crmContacts(typeId, page),
    queryFn: () =>
      api.get<CrmContactsAnswer>(`/api/admin/conversation-type/${typeId}/pipeline/contacts`, {
        pipelineId: page.pipelineId,
        stageId: page.stageId,
        startAfter: page.cursor?.startAfter,
        startAfterId: page.cursor?.startAfterId,
        limit: page.limit,
      }),
    // The table keeps the last page on screen while the next one loads (no jump to an empty table).
    placeholderData: keepPreviousData,
    retry: false,
  });

/** POST /api/admin/call/{phone} (spec §7.3) for a CRM contact; answers the new conversation's uuid. */
export function usePlaceContactCall(typeId: string) {
  return useWrite({
    write: ({ phone, contactId }: { phone: string; contactId: string }) =>
      api.post<{ uuid: string }>(`/api/admin/call/${encodeURIComponent(phone)}`, {
        conversationTypeId: Number(typeId),
        contactId,
        useRealtimeApi: true,
      }),
  });
}
