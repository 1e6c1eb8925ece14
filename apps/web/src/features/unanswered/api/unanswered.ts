import { queryOptions } from '@tanstack/react-query';
import type { UnansweredStatus } from '@sales-agent/shared/enums';
import { LIMITS } from '@sales-agent/shared/limits';
import type { UnansweredItem } from '@sales-agent/shared/schemas/unanswered';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** The query keys of the unanswered list (one key: the list has no parameters). */
export const unansweredKeys = { all: () => ['unanswered-conversations'] as const };

/** Spec §2.9/§7.5: polled every 3 s. */
export const unansweredQuery = () =>
  queryOptions({
    queryKey: unansweredKeys.all(),
    queryFn: () => api.get<UnansweredItem[]>('/api/admin/unanswered-conversations/listt'),
    refetchInterval: LIMITS.unansweredRefreshMs,
  });

export const useDeleteUnanswered = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/admin/unanswered-conversations/${id}`),
    refreshes: () => [unansweredKeys.all()],
  });

/** Activate (follow-ups resume) or deactivate an entry. */
export const useSetUnansweredStatus = () =>
  useWrite({
    write: ({ id, status }: { id: number; status: UnansweredStatus }) =>
      api.patch<{ message: string }>(`/api/admin/unanswered-conversations/${id}`, { status }),
    refreshes: () => [unansweredKeys.all()],
  });
