import { Anchor, Button, Card, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { SafeHtml } from '../../../components/safe-html.tsx';
import { paths } from '../../../config/paths.ts';
import { useSetSession } from '../../../lib/auth.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { appConfigQuery } from '../../admin/api/app-config.ts';
import { register } from '../api/auth.ts';
import { validateEmail, validateNewPassword } from '../components/validation.ts';

export default function RegisterPage() {
  const { data: registerHtml } = useQuery(appConfigQuery('registerHTML'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string; confirmation?: string }>({});
  const [busy, setBusy] = useState(false);
  const setSession = useSetSession();
  const navigate = useNavigate();

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const next = { email: validateEmail(email) ?? undefined, ...validateNewPassword(password, confirmation) };
    setErrors(next);
    if (next.email || next.password || next.confirmation) return;
    setBusy(true);
    try {
      setSession(await register(email.trim(), password));
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
          <TextInput label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={errors.email} />
          <PasswordInput label="Password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={errors.password} />
          <PasswordInput
            label="Confirm password"
            autoComplete="new-password"
            value={confirmation}
            onChange={(e) => setConfirmation(e.currentTarget.value)}
            error={errors.confirmation}
          />
          <Button type="submit" loading={busy}>
            Register
          </Button>
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
