import { Alert, Button, PasswordInput, Stack, Text } from '@mantine/core';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import { LIMITS } from '@sales-agent/shared/limits';
import type { Session } from '@sales-agent/shared/schemas/user';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useSetSession } from '../../../lib/auth.ts';
import { useLinkFacebook, useMetaLoginRegister } from '../api/meta.ts';
import { ReturnError, ReturnPage } from '../components/return-page.tsx';

type Outcome =
  | { kind: 'working' }
  | { kind: 'done'; session: Session; next: string }
  | { kind: 'link'; email: string; linkToken: string; text: string }
  | { kind: 'error'; text: string };

/** Where to go after 'Login successful!': the set-password link for an account without a password, else the profile. */
function nextPath(session: Session & { setPasswordToken?: string }): string {
  if (!session.setPasswordToken) return paths.profile(session.email);
  return `${paths.setPassword}?${new URLSearchParams({ email: session.email, token: session.setPasswordToken })}`;
}

/**
 * Facebook login return (spec §2.2): the access token arrives in the URL hash (never sent to our server
 * by the browser's navigation); it is posted once as `code` with the state, then the profile after 3 s. An
 * account without a password goes to the set-password page instead, with its one-time link token; an existing
 * account with a password first asks for that password once, to link Facebook to it (issue 29).
 */
export default function MetaLoginRedirectPage() {
  const { hash } = useLocation();
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const token = fields.get('access_token');
  const state = fields.get('state');
  const setSession = useSetSession();
  const navigate = useNavigate();
  const [outcome, setOutcome] = useState<Outcome>(token ? { kind: 'working' } : { kind: 'error', text: 'Error: No authorization access_token received' });
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const { mutate: loginRegister } = useMetaLoginRegister();
  const linkFacebook = useLinkFacebook();
  const posted = useRef(false);

  useEffect(() => {
    if (!token || posted.current) return;
    posted.current = true;
    // The token leaves the address bar at once, so it is not kept in history or shown over a shoulder.
    window.history.replaceState(null, '', window.location.pathname);
    loginRegister(
      { code: token, state },
      {
        onSuccess: ({ setPasswordToken, ...session }) => {
          setSession(session);
          setOutcome({ kind: 'done', session, next: nextPath({ ...session, setPasswordToken }) });
        },
        onError: (err) => {
          const body = err instanceof ApiError ? (err.body as { code?: ErrorCode; email?: string; linkToken?: string } | null) : null;
          if (body?.code === 'META_LINK_PASSWORD_REQUIRED' && body.linkToken && body.email) {
            setOutcome({ kind: 'link', email: body.email, linkToken: body.linkToken, text: errorMessage(err) });
          } else {
            setOutcome({ kind: 'error', text: `Error: ${errorMessage(err)}` });
          }
        },
      },
    );
  }, [token, state, setSession, loginRegister]);

  useEffect(() => {
    if (outcome.kind !== 'done') return;
    const timer = setTimeout(() => navigate(outcome.next), LIMITS.connectRedirectDelayMs);
    return () => clearTimeout(timer);
  }, [outcome, navigate]);

  const link = (e: React.FormEvent) => {
    e.preventDefault();
    if (outcome.kind !== 'link') return;
    if (!password) return setPasswordError('Password is required');
    setPasswordError(null);
    linkFacebook.mutate(
      { linkToken: outcome.linkToken, password },
      {
        onSuccess: (session) => {
          setSession(session);
          setOutcome({ kind: 'done', session, next: paths.profile(session.email) });
        },
      },
    );
  };

  return (
    <ReturnPage title="Facebook login" working={outcome.kind === 'working' && 'Logging you in…'}>
      {outcome.kind === 'done' ? (
        <Alert color="green" data-testid="meta-login-result">
          Login successful!
          {outcome.next.startsWith(paths.setPassword) ? <Text size="sm">Next, choose a password so you can also log in with your email.</Text> : null}
        </Alert>
      ) : outcome.kind === 'link' ? (
        <form onSubmit={link} noValidate>
          <Stack>
            <Alert color="blue" data-testid="meta-login-result">
              {outcome.text}
            </Alert>
            <Text size="sm">
              Account: <strong>{outcome.email}</strong>
            </Text>
            <PasswordInput label="Password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={passwordError} />
            <Button type="submit" loading={linkFacebook.isPending}>
              Link Facebook and log in
            </Button>
          </Stack>
        </form>
      ) : (
        outcome.kind === 'error' && <ReturnError testId="meta-login-result" text={outcome.text} />
      )}
    </ReturnPage>
  );
}
