import { Anchor, Button, Card, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { redirectTarget } from '../../../app/guards.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { FacebookLoginButton } from '../../meta/components/facebook-login-button.tsx';
import { useSetSession } from '../../../lib/auth.ts';
import { useLogin } from '../api/auth.ts';
import { validateEmail } from '../components/validation.ts';

export default function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const login = useLogin();
  const setSession = useSetSession();
  const navigate = useNavigate();
  const location = useLocation();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const next = {
      email: validateEmail(email) ?? undefined,
      password: password ? undefined : 'Password is required',
    };
    setErrors(next);
    if (next.email || next.password) return;
    login.mutate(
      { email: email.trim(), password },
      {
        onSuccess: (session) => {
          setSession(session);
          navigate(redirectTarget(location.search), { replace: true });
        },
      },
    );
  };

  return (
    <Card withBorder maw={420} mx="auto" mt="xl" p="lg">
      <PageTitle>Login</PageTitle>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={errors.email} />
          <PasswordInput label="Password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={errors.password} />
          <Anchor component={Link} to={paths.forgotPassword} size="sm" ta="right">
            Forgot password?
          </Anchor>
          <Button type="submit" loading={login.isPending}>
            Login
          </Button>
          <FacebookLoginButton />
          <Text size="sm">
            No account yet?{' '}
            <Anchor component={Link} to={paths.register}>
              Register
            </Anchor>
          </Text>
        </Stack>
      </form>
    </Card>
  );
}
