import { queryOptions } from '@tanstack/react-query';
import type { InviteUserResponse, PatchUserBody, TeamUser } from '@sales-agent/shared/schemas/user';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** Team management (issue 24): the users, invitations by link, roles and deactivation. */
export const teamKeys = { all: () => ['team-users'] as const };

export const teamQuery = () => queryOptions({ queryKey: teamKeys.all(), queryFn: () => api.get<TeamUser[]>('/api/admin/users') });

export const useInviteUser = () =>
  useWrite({
    write: (body: { email: string; role: 'ADMIN' | 'NORMAL' }) => api.post<InviteUserResponse>('/api/admin/users/invite', body),
    refreshes: () => [teamKeys.all()],
  });

export const usePatchUser = () =>
  useWrite({
    write: ({ user, change }: { user: TeamUser; change: PatchUserBody }) => api.patch<TeamUser>(`/api/admin/users/${user.id}`, change),
    refreshes: () => [teamKeys.all()],
    notice: 'User updated',
  });
