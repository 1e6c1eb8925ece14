import { Alert, Anchor, Button, Card, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { SafeHtml } from '../../../components/safe-html.tsx';
import { paths } from '../../../config/paths.ts';
import { FacebookLoginButton } from '../../meta/components/facebook-login-button.tsx';
import { useSetSession } from '../../../lib/auth.ts';
import { appConfigQuery } from '../../admin/api/app-config.ts';
import { isRefusal, registrationQuery, useRegister } from '../api/auth.ts';
import { NewPasswordFields, useNewPasswordForm } from '../components/new-password-fields.tsx';

export default function RegisterPage() {
  const { data: registerHtml } = useQuery(appConfigQuery('registerHTML'));
  // REGISTRATION=invite|closed: the server's sentence instead of a form that can only fail; an invitation
  // link (?invitation=…&email=…) brings the form back for the invited email.
  const { data: registration } = useQuery(registrationQuery());
  const [params] = useSearchParams();
  const invitation = params.get('invitation') ?? undefined;
  const form = useNewPasswordForm(params.get('email') ?? '');
  const [refusal, setRefusal] = useState<string | null>(null);
  const refused = registration && (registration.mode === 'closed' || (registration.mode === 'invite' && !invitation));
  const notice = refusal ?? (refused ? registration.message : null);
  const register = useRegister();
  const setSession = useSetSession();
  const navigate = useNavigate();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!form.validate()) return;
    register.mutate(
      { email: form.email.trim(), password: form.password, invitation },
      {
        onSuccess: (session) => {
          setSession(session);
          navigate(paths.onboarding);
        },
        onError: (err) => {
          if (isRefusal(err)) setRefusal(err.message);
        },
      },
    );
  };

  return (
    <Card withBorder maw={520} mx="auto" mt="xl" p="lg">
      <PageTitle>Register</PageTitle>
      {registerHtml ? <SafeHtml html={registerHtml} data-testid="register-html" style={{ marginBottom: 16 }} /> : null}
      {notice ? (
        <Alert color="yellow" title="Registration is not open" role="alert" mb="md" data-testid="registration-notice">
          {notice}
        </Alert>
      ) : null}
      <form onSubmit={submit} noValidate>
        <Stack>
          {refused ? null : (
            <>
              <NewPasswordFields form={form} />
              <Button type="submit" loading={register.isPending}>
                Register
              </Button>
            </>
          )}
          <FacebookLoginButton />
          <Text size="sm">
            Already registered?{' '}
            <Anchor component={Link} to={paths.login}>
              Login
            </Anchor>
          </Text>
        </Stack>
      </form>
    </Card>
  );
}
