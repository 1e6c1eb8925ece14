import { queryOptions } from '@tanstack/react-query';
import type { CannedReply, CannedReplyBody } from '@sales-agent/shared/schemas/canned-reply';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** The team's canned replies (issue 24): everyone reads them (the composer's "/" menu); an ADMIN keeps them. */
export const cannedReplyKeys = { all: () => ['canned-replies'] as const };

export const cannedRepliesQuery = () =>
  queryOptions({ queryKey: cannedReplyKeys.all(), queryFn: () => api.get<CannedReply[]>('/api/canned-replies'), staleTime: 60_000 });

export const useAddCannedReply = () =>
  useWrite({
    write: (body: CannedReplyBody) => api.post<CannedReply>('/api/canned-replies', body),
    notice: 'Canned reply saved',
    refreshes: () => [cannedReplyKeys.all()],
  });

export const useChangeCannedReply = () =>
  useWrite({
    write: ({ id, change }: { id: number; change: Partial<CannedReplyBody> }) => api.patch<CannedReply>(`/api/canned-replies/${id}`, change),
    notice: 'Canned reply saved',
    refreshes: () => [cannedReplyKeys.all()],
  });

export const useDeleteCannedReply = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/canned-replies/${id}`),
    refreshes: () => [cannedReplyKeys.all()],
  });
