import { Loader } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Navigate } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { useStartMetaOAuth } from '../api/meta.ts';

/** A link target (spec §2.2): forwards straight to the Instagram connect flow; visitors log in first. */
export default function IgRedirectPage() {
  const auth = useAuth();
  const { start } = useStartMetaOAuth();
  const started = useRef(false);
  useEffect(() => {
    if (!auth.isAuthenticated || started.current) return;
    started.current = true;
    start('INSTAGRAM');
  }, [auth.isAuthenticated, start]);
  if (auth.isLoading) return <Loader />;
  if (!auth.isAuthenticated) return <Navigate to={`${paths.login}?redirect=${encodeURIComponent(paths.igRedirect)}`} replace />;
  return <Loader />;
}
