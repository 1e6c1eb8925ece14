import { queryOptions } from '@tanstack/react-query';
import type { RegistrationInfo } from '@sales-agent/shared/schemas/invitation';
import type { Session } from '@sales-agent/shared/schemas/user';
import { api, apiRequest } from '../../../lib/api-client.ts';

export const login = (email: string, password: string) => api.post<Session>('/api/user/login', { email, password });
export const register = (email: string, password: string, invitation?: string) =>
  api.post<Session>('/api/user/register', { email, password, ...(invitation ? { invitation } : {}) });

/** REGISTRATION of this server (open, invite, closed) and the sentence to show when it is not open. */
export const registrationQuery = () =>
  queryOptions({ queryKey: ['registration'], queryFn: () => api.get<RegistrationInfo>('/api/user/registration'), staleTime: 60_000 });

/** One set-password attempt: 202 means the account is still being provisioned (spec §4). */
export async function setPasswordOnce(email: string, password: string): Promise<Session | 'pending'> {
  const { status, data } = await apiRequest<Session>('POST', '/api/user/set-password', { body: { email, password } });
  return status === 202 ? 'pending' : data;
}

export const deleteUser = (email: string) => api.delete('/api/user/delete', { email });
