import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { InvitationCreated, InvitationView } from '@sales-agent/shared/schemas/invitation';
import { api } from '../../../lib/api-client.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';

export const invitationKeys = { all: () => ['invitations'] as const };

export type { InvitationCreated, InvitationView };

export const invitationsQuery = () =>
  queryOptions({ queryKey: invitationKeys.all(), queryFn: () => api.get<InvitationView[]>('/api/admin/invitations/list') });

/** Invites an email (the link is shown, not sent); a refusal is a toast. The list refreshes either way. */
export function useCreateInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => api.post<InvitationCreated>('/api/admin/invitations/create', { email }),
    onError: (err) => toastError(err),
    onSettled: () => client.invalidateQueries({ queryKey: invitationKeys.all() }),
  });
}

/** Revokes an open invitation: its link stops working. The list refreshes either way. */
export function useRevokeInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/api/admin/invitations/${id}`),
    onSuccess: (answer) => toastSuccess(answer.message),
    onError: (err) => toastError(err),
    onSettled: () => client.invalidateQueries({ queryKey: invitationKeys.all() }),
  });
}
