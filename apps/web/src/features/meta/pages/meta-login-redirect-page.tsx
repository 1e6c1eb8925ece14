import { Alert, Loader, Stack, Text } from '@mantine/core';
import { LIMITS } from '@sales-agent/shared/limits';
import type { Session } from '@sales-agent/shared/schemas/user';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useSetSession } from '../../../lib/auth.ts';
import { toastSuccess } from '../../../lib/toast.ts';
import { metaLoginRegister } from '../api/meta.ts';

type Outcome = { kind: 'working' } | { kind: 'done'; session: Session } | { kind: 'error'; text: string };

/**
 * Facebook login return (spec §2.2): the access token arrives in the URL hash (never sent to our server
 * by the browser's navigation); it is posted once as `code` with the state, then the profile after 3 s.
 */
export default function MetaLoginRedirectPage() {
  const { hash } = useLocation();
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const token = fields.get('access_token');
  const state = fields.get('state');
  const setSession = useSetSession();
  const navigate = useNavigate();
  const [outcome, setOutcome] = useState<Outcome>(token ? { kind: 'working' } : { kind: 'error', text: 'Error: No authorization access_token received' });
  const posted = useRef(false);

  useEffect(() => {
    if (!token || posted.current) return;
    posted.current = true;
    // The token leaves the address bar at once, so it is not kept in history or shown over a shoulder.
    window.history.replaceState(null, '', window.location.pathname);
    metaLoginRegister(token, state).then(
      (session) => {
        setSession(session);
        toastSuccess('Login successful');
        setOutcome({ kind: 'done', session });
      },
      (err) => setOutcome({ kind: 'error', text: `Error: ${errorMessage(err)}` }),
    );
  }, [token, state, setSession]);

  useEffect(() => {
    if (outcome.kind !== 'done') return;
    const timer = setTimeout(() => navigate(paths.profile(outcome.session.email)), LIMITS.connectRedirectDelayMs);
    return () => clearTimeout(timer);
  }, [outcome, navigate]);

  return (
    <Stack maw={560} mx="auto" mt="xl">
      <PageTitle>Facebook login</PageTitle>
      {outcome.kind === 'working' ? (
        <Text>
          <Loader size="xs" mr="xs" />
          Logging you in…
        </Text>
      ) : outcome.kind === 'done' ? (
        <Alert color="green" data-testid="meta-login-result">
          Login successful!
        </Alert>
      ) : (
        <Alert color="red" data-testid="meta-login-result">
          {outcome.text}
        </Alert>
      )}
    </Stack>
  );
}
