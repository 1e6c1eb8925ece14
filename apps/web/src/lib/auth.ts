import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Session } from '@sales-agent/shared/schemas/user';
import type {} from '../session-check.ts';
import { api, ApiError, readResponse } from './api-client.ts';

export const sessionQueryKey = ['session'] as const;

/** The first screens' early session check (src/session-check.ts), taken once: later checks ask again. */
function takeEarlySessionCheck(): Promise<Response> | undefined {
  const early = window.salesAgentSessionCheck;
  window.salesAgentSessionCheck = undefined;
  return early;
}

async function fetchSession(): Promise<Session | null> {
  try {
    const early = takeEarlySessionCheck();
    return early ? (await readResponse<Session>(early)).data : await api.post<Session>('/api/user/get-session');
  } catch (err) {
    // A failed session check clears the session (spec §8.3).
    if (err instanceof ApiError && err.status < 500) return null;
    throw err;
  }
}

/** The session check; main.tsx starts it before the first page has loaded, useAuth reads it. */
export const sessionQuery = queryOptions({ queryKey: sessionQueryKey, queryFn: fetchSession, staleTime: Infinity, retry: false });

/** Auth state (spec §3): email, role, isAuthenticated. Checked once at app start. */
export function useAuth() {
  const query = useQuery(sessionQuery);
  const session = query.data ?? null;
  return {
    isLoading: query.isPending,
    isAuthenticated: session !== null,
    email: session?.email ?? null,
    role: session?.role ?? null,
    isAdmin: session?.role === 'ADMIN',
  };
}

/** Stores the session returned by login, register, set-password or Meta login. */
export function useSetSession() {
  const client = useQueryClient();
  return (session: Session | null) => client.setQueryData(sessionQueryKey, session);
}

export function useLogout() {
  const client = useQueryClient();
  return async () => {
    try {
      await api.post('/api/user/logout');
    } finally {
      client.setQueryData(sessionQueryKey, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    }
  };
}
