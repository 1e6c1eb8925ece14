import { Alert, Anchor, Button, Card, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { DEFAULT_SUPPORT_MESSAGE, LIMITS } from '@sales-agent/shared/limits';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { useAuth, useSetSession } from '../../../lib/auth.ts';
import { appConfigQuery } from '../../admin/api/app-config.ts';
import { useSetPassword } from '../api/auth.ts';
import { NewPasswordFields, useNewPasswordForm } from '../components/new-password-fields.tsx';

/**
 * Spec §4: the call is repeated while the server answers 202, up to 6 attempts 2 s apart; if the 6th is
 * still 202 the configured support message is shown. Success logs in and goes to /user/onboarding.
 * The one-time `token` of the link that opened the page (Facebook login, a forgot-password email, an ADMIN's
 * link) goes with every attempt; it leaves the address bar at once. Without one, the user's own session must
 * be that account's (issue 29).
 */
export default function SetPasswordPage() {
  const [params] = useSearchParams();
  const form = useNewPasswordForm(params.get('email') ?? '');
  const [token] = useState(() => params.get('token'));
  const auth = useAuth();
  useEffect(() => {
    if (!params.get('token')) return;
    const kept = new URLSearchParams(params);
    kept.delete('token');
    const query = kept.toString();
    window.history.replaceState(window.history.state, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
  }, [params]);
  const [attempt, setAttempt] = useState(0);
  const [supportMessage, setSupportMessage] = useState<string | null>(null);
  const setSession = useSetSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const setPassword = useSetPassword();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!form.validate()) return;
    setSupportMessage(null);
    setPassword.mutate(
      { email: form.email.trim(), password: form.password, token, onAttempt: setAttempt },
      {
        onSuccess: async (result) => {
          if (result !== 'pending') {
            setSession(result);
            navigate(paths.onboarding);
          } else {
            const configured = await client.fetchQuery(appConfigQuery('supportMessage')).catch(() => '');
            setSupportMessage(configured.trim() || DEFAULT_SUPPORT_MESSAGE);
          }
          setAttempt(0);
        },
        onError: () => setAttempt(0),
      },
    );
  };

  return (
    <Card withBorder maw={420} mx="auto" mt="xl" p="lg">
      <PageTitle>Set password</PageTitle>
      <form onSubmit={submit} noValidate>
        <Stack>
          {!token && !auth.isAuthenticated && !auth.isLoading ? (
            <Text size="sm" c="dimmed" data-testid="set-password-hint">
              Open this page from the link you were sent (it works once, for a limited time). No link?{' '}
              <Anchor component={Link} to={paths.forgotPassword}>
                Ask for a new one
              </Anchor>
              .
            </Text>
          ) : null}
          <NewPasswordFields form={form} />
          <Button type="submit" loading={attempt > 0}>
            Set password
          </Button>
          {attempt > 1 && (
            <Text size="sm" c="dimmed">
              Your account is still being set up… (attempt {attempt} of {LIMITS.setPasswordAttempts})
            </Text>
          )}
          {supportMessage && (
            <Alert color="red" role="alert">
              {supportMessage}
            </Alert>
          )}
          {auth.isAuthenticated && auth.email ? (
            <Anchor component={Link} to={paths.profile(auth.email)} size="sm">
              Skip for now
            </Anchor>
          ) : null}
        </Stack>
      </form>
    </Card>
  );
}
