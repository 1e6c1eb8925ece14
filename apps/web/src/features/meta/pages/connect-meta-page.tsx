import { Alert } from '@mantine/core';
import { LIMITS } from '@sales-agent/shared/limits';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useAuth } from '../../../lib/auth.ts';
import { CONNECT_TYPES, type ConnectType, connectMetaPage } from '../api/meta.ts';
import { ReturnError, ReturnPage } from '../components/return-page.tsx';

type Outcome = { kind: 'working' } | { kind: 'done'; pageName: string } | { kind: 'error'; text: string };

/**
 * The connect return (spec §2.2): query code, type (default INSTAGRAM) and the state. Posts them once
 * (a state is single use), then shows the outcome and goes to the profile after 3 s (spec §4, §9).
 */
export default function ConnectMetaPage() {
  const [params] = useSearchParams();
  const code = params.get('code');
  const raw = params.get('type') ?? 'INSTAGRAM';
  const type: ConnectType = (CONNECT_TYPES as string[]).includes(raw) ? (raw as ConnectType) : 'INSTAGRAM';
  const state = params.get('state');
  const auth = useAuth();
  const navigate = useNavigate();
  const [outcome, setOutcome] = useState<Outcome>(code ? { kind: 'working' } : { kind: 'error', text: 'Error: Code not found' });
  const posted = useRef(false);

  useEffect(() => {
    if (!code || posted.current) return;
    posted.current = true;
    connectMetaPage(type, code, state).then(
      ({ pageName }) => setOutcome({ kind: 'done', pageName }),
      // The reason is in the server's log; the page shows the spec's sentence (§8.3).
      () => setOutcome({ kind: 'error', text: `Error connecting ${type} account` }),
    );
  }, [code, state, type]);

  useEffect(() => {
    if (outcome.kind !== 'done' || !auth.email) return;
    const timer = setTimeout(() => navigate(paths.profile(auth.email!)), LIMITS.connectRedirectDelayMs);
    return () => clearTimeout(timer);
  }, [outcome, auth.email, navigate]);

  return (
    <ReturnPage title="Connect account" working={outcome.kind === 'working' && `Connecting your ${type} account…`}>
      {outcome.kind === 'done' ? (
        <Alert color="green" data-testid="connect-result">
          {`Connected to ${outcome.pageName} successfully!`}
        </Alert>
      ) : (
        outcome.kind === 'error' && <ReturnError testId="connect-result" text={outcome.text} />
      )}
    </ReturnPage>
  );
}
