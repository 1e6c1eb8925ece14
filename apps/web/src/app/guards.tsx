import { Center, Loader } from '@mantine/core';
import { Navigate, Outlet, useLocation } from 'react-router';
import { paths } from '../config/paths.ts';
import { useAuth } from '../lib/auth.ts';

/**
 * Route guard of spec §6. Anonymous visitors go to /login carrying the attempted path (?redirect=…);
 * a signed-in non-admin on an ADMIN page goes to /conversation/new. NORMAL pages admit ADMIN too.
 */
export function RequireRole({ role }: { role: 'NORMAL' | 'ADMIN' }) {
  const auth = useAuth();
  const location = useLocation();
  if (auth.isLoading) {
    return (
      <Center py="xl">
        <Loader aria-label="Checking your session" />
      </Center>
    );
  }
  if (!auth.isAuthenticated) {
    const redirect = `${location.pathname}${location.search}`;
    return <Navigate to={`${paths.login}?redirect=${encodeURIComponent(redirect)}`} replace />;
  }
  if (role === 'ADMIN' && !auth.isAdmin) return <Navigate to={paths.conversationNew} replace />;
  return <Outlet />;
}

/** Where to go after logging in: the carried path when it is a local one, else the start page. */
export function redirectTarget(search: string, fallback: string = paths.home): string {
  const target = new URLSearchParams(search).get('redirect');
  return target && target.startsWith('/') && !target.startsWith('//') ? target : fallback;
}
