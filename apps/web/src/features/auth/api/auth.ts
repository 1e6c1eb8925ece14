import { queryOptions } from '@tanstack/react-query';
import type { RegistrationInfo } from '@sales-agent/shared/schemas/invitation';
import type { Session } from '@sales-agent/shared/schemas/user';
import { api, apiRequest } from '../../../lib/api-client.ts';

export const authKeys = { registration: () => ['registration'] as const };

export const login = (email: string, password: string) => api.post<Session>('/api/user/login', { email, password });
export const register = (email: string, password: string, invitation?: string) =>
  api.post<Session>('/api/user/register', { email, password, ...(invitation ? { invitation } : {}) });

/** REGISTRATION of this server (open, invite, closed) and the sentence to show when it is not open. */
export const registrationQuery = () =>
  queryOptions({ queryKey: authKeys.registration(), queryFn: () => api.get<RegistrationInfo>('/api/user/registration'), staleTime: 60_000 });

/**
 * One set-password attempt: 202 means the account is still being provisioned (spec §4). `token` is the one-time
 * token of the link that opened the page; without it the server needs the user's own session.
 */
export async function setPasswordOnce(email: string, password: string, token?: string | null): Promise<Session | 'pending'> {
  const { status, data } = await apiRequest<Session>('POST', '/api/user/set-password', { body: { email, password, ...(token ? { token } : {}) } });
  return status === 202 ? 'pending' : data;
}

/** Asks for a set-password link by email; the answer is the same whether the account exists or not. */
export const forgotPassword = (email: string) => api.post<{ message: string }>('/api/user/forgot-password', { email });
export const changePassword = (currentPassword: string, newPassword: string) =>
  api.post<{ message: string }>('/api/user/change-password', { currentPassword, newPassword });
export const logoutEverywhere = () => api.post<{ message: string }>('/api/user/logout-everywhere');
/** ADMIN: a one-time link for a user to set a new password (24 hours). */
export const createResetLink = (email: string) => api.post<{ url: string; expiresAt: string }>(`/api/admin/users/${encodeURIComponent(email)}/reset-link`);

export const deleteUser = (email: string) => api.delete('/api/user/delete', { email });
