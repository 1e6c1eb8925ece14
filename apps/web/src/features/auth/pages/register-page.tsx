import { Anchor, Button, Card, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { SafeHtml } from '../../../components/safe-html.tsx';
import { paths } from '../../../config/paths.ts';
import { FacebookLoginButton } from '../../meta/components/facebook-login-button.tsx';
import { useSetSession } from '../../../lib/auth.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { appConfigQuery } from '../../admin/api/app-config.ts';
import { register } from '../api/auth.ts';
import { NewPasswordFields, useNewPasswordForm } from '../components/new-password-fields.tsx';

export default function RegisterPage() {
  const { data: registerHtml } = useQuery(appConfigQuery('registerHTML'));
  const form = useNewPasswordForm();
  const [busy, setBusy] = useState(false);
  const setSession = useSetSession();
  const navigate = useNavigate();

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!form.validate()) return;
    setBusy(true);
    try {
      setSession(await register(form.email.trim(), form.password));
      toastSuccess('Registration successful');
      navigate(paths.onboarding);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card withBorder maw={520} mx="auto" mt="xl" p="lg">
      <PageTitle>Register</PageTitle>
      {registerHtml ? <SafeHtml html={registerHtml} data-testid="register-html" style={{ marginBottom: 16 }} /> : null}
      <form onSubmit={submit} noValidate>
        <Stack>
          <NewPasswordFields form={form} />
          <Button type="submit" loading={busy}>
            Register
          </Button>
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
