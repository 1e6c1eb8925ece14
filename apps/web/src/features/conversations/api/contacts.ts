import { queryOptions } from '@tanstack/react-query';
import type { ContactSummary } from '@sales-agent/shared/schemas/contact';
import { api, withQuery } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { conversationKeys } from './conversations.ts';

/** Contacts (issue 24, docs/workspace.md "Contacts"): find, edit and merge from the prospect panel. */
export const contactKeys = {
  search: (q: string) => ['contacts', 'search', q] as const,
};

export const contactSearchQuery = (q: string) =>
  queryOptions({
    queryKey: contactKeys.search(q),
    queryFn: () => api.get<ContactSummary[]>(withQuery('/api/contacts', { q })),
    enabled: q.trim().length > 0,
  });

export type ContactChange = { name?: string | null; email?: string | null; phone?: string | null };

/** PATCH /api/contacts/{id}; refreshes every conversation (each panel shows its contact) and the lists. */
export const useChangeContact = () =>
  useWrite({
    write: ({ id, change }: { id: number; change: ContactChange }) => api.patch<ContactSummary>(`/api/contacts/${id}`, change),
    notice: 'Contact saved',
    showsItself: () => true,
    refreshes: () => [['conversation'], conversationKeys.lists(), ['contacts']],
  });

/** POST /api/contacts/{id}/merge: the other contact's handles and conversations move to this one. */
export const useMergeContact = () =>
  useWrite({
    write: ({ id, otherContactId }: { id: number; otherContactId: number }) =>
      api.post<ContactSummary>(`/api/contacts/${id}/merge`, { otherContactId }),
    notice: 'Contacts merged',
    refreshes: () => [['conversation'], conversationKeys.lists(), ['contacts']],
  });
