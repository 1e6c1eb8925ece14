import { Loader } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Navigate } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { toastError } from '../../../lib/toast.ts';
import { startMetaOAuth } from '../api/meta.ts';

/** A link target (spec §2.2): forwards straight to the Instagram connect flow; visitors log in first. */
export default function IgRedirectPage() {
  const auth = useAuth();
  const started = useRef(false);
  useEffect(() => {
    if (!auth.isAuthenticated || started.current) return;
    started.current = true;
    startMetaOAuth('INSTAGRAM').catch(toastError);
  }, [auth.isAuthenticated]);
  if (auth.isLoading) return <Loader />;
  if (!auth.isAuthenticated) return <Navigate to={`${paths.login}?redirect=${encodeURIComponent(paths.igRedirect)}`} replace />;
  return <Loader />;
}
