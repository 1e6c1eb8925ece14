import { queryOptions } from '@tanstack/react-query';
import type { InvitationCreated, InvitationView } from '@sales-agent/shared/schemas/invitation';
import { api } from '../../../lib/api-client.ts';

export const invitationKeys = { all: () => ['invitations'] as const };

export type { InvitationCreated, InvitationView };

export const invitationsQuery = () =>
  queryOptions({ queryKey: invitationKeys.all(), queryFn: () => api.get<InvitationView[]>('/api/admin/invitations/list') });

export const createInvitation = (email: string) => api.post<InvitationCreated>('/api/admin/invitations/create', { email });

export const revokeInvitation = (id: number) => api.delete<{ message: string }>(`/api/admin/invitations/${id}`);
