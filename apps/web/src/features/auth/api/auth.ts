import { queryOptions } from '@tanstack/react-query';
import type { RegistrationInfo } from '@sales-agent/shared/schemas/invitation';
import type { Session } from '@sales-agent/shared/schemas/user';
import { LIMITS } from '@sales-agent/shared/limits';
import { api, ApiError, apiRequest } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

export const authKeys = { registration: () => ['registration'] as const };

export const useLogin = () =>
  useWrite({
    write: ({ email, password }: { email: string; password: string }) => api.post<Session>('/api/user/login', { email, password }),
    notice: 'Login successful',
  });

/** A 403 (registration closed, invitation not valid) is the page's notice, not a toast. */
export const useRegister = () =>
  useWrite({
    write: ({ email, password, invitation }: { email: string; password: string; invitation?: string }) =>
      api.post<Session>('/api/user/register', { email, password, ...(invitation ? { invitation } : {}) }),
    notice: 'Registration successful',
    showsItself: isRefusal,
  });

export const isRefusal = (err: unknown): err is ApiError => err instanceof ApiError && err.status === 403;

/** REGISTRATION of this server (open, invite, closed) and the sentence to show when it is not open. */
export const registrationQuery = () =>
  queryOptions({ queryKey: authKeys.registration(), queryFn: () => api.get<RegistrationInfo>('/api/user/registration'), staleTime: 60_000 });

/**
 * One set-password attempt: 202 means the account is still being provisioned (spec §4). `token` is the one-time
 * token of the link that opened the page; without it the server needs the user's own session.
 */
async function setPasswordOnce(email: string, password: string, token?: string | null): Promise<Session | 'pending'> {
  const { status, data } = await apiRequest<Session>('POST', '/api/user/set-password', { body: { email, password, ...(token ? { token } : {}) } });
  return status === 202 ? 'pending' : data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Spec §4: the call is repeated while the server answers 202, up to LIMITS.setPasswordAttempts attempts
 * LIMITS.setPasswordRetryDelayMs apart (`onAttempt` hears each one's number). The session, or 'pending' when
 * the last one was still 202.
 */
export const useSetPassword = () =>
  useWrite({
    write: async (vars: { email: string; password: string; token?: string | null; onAttempt: (attempt: number) => void }) => {
      for (let i = 1; i <= LIMITS.setPasswordAttempts; i++) {
        vars.onAttempt(i);
        const result = await setPasswordOnce(vars.email, vars.password, vars.token);
        if (result !== 'pending') return result;
        if (i < LIMITS.setPasswordAttempts) await sleep(LIMITS.setPasswordRetryDelayMs);
      }
      return 'pending' as const;
    },
  });

/** Asks for a set-password link by email; the answer is the same whether the account exists or not. */
export const forgotPassword = (email: string) => api.post<{ message: string }>('/api/user/forgot-password', { email });

export const useChangePassword = () =>
  useWrite({
    write: ({ currentPassword, newPassword }: { currentPassword: string; newPassword: string }) =>
      api.post<{ message: string }>('/api/user/change-password', { currentPassword, newPassword }),
  });

export const useLogoutEverywhere = () =>
  useWrite({ write: () => api.post<{ message: string }>('/api/user/logout-everywhere'), notice: 'Signed out everywhere' });

/** ADMIN: a one-time link for a user to set a new password (24 hours). */
export const useCreateResetLink = () =>
  useWrite({ write: (email: string) => api.post<{ url: string; expiresAt: string }>(`/api/admin/users/${encodeURIComponent(email)}/reset-link`) });

export const useDeleteUser = () => useWrite({ write: (email: string) => api.delete('/api/user/delete', { email }), notice: 'User deleted' });
