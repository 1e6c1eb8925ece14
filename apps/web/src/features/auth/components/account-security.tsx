import { Anchor, Button, Card, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { useLogout } from '../../../lib/auth.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { useChangePassword, useLogoutEverywhere } from '../api/auth.ts';
import { NewPasswordInputs } from './new-password-fields.tsx';
import { validateNewPassword } from './validation.ts';

/**
 * The signed-in user's own password and sessions on their profile (issue 29): change the password (the current
 * one is required; the other sessions end), set a first one for an account Facebook login created, and sign out
 * everywhere.
 */
export function AccountSecurity({ email, hasPassword }: { email: string; hasPassword: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<{ current?: string; password?: string; confirmation?: string }>({});
  const changePassword = useChangePassword();
  const logoutEverywhere = useLogoutEverywhere();
  const logout = useLogout();
  const navigate = useNavigate();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const found = { current: current ? undefined : 'Current password is required', ...validateNewPassword(next, confirmation) };
    setErrors(found);
    if (found.current || found.password || found.confirmation) return;
    changePassword.mutate(
      { currentPassword: current, newPassword: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setConfirmation('');
        },
      },
    );
  };

  const onLogoutEverywhere = async () => {
    const ok = await confirmAction('Sign out of every browser and device where you are signed in, this one included?', {
      title: 'Sign out everywhere',
      confirmLabel: 'Sign out everywhere',
    });
    if (!ok) return;
    logoutEverywhere.mutate(undefined, {
      onSuccess: async () => {
        await logout().catch(() => undefined);
        navigate(paths.login);
      },
    });
  };

  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        Password and sessions
      </Title>
      {hasPassword ? (
        <form onSubmit={submit} noValidate aria-label="Change password">
          <Stack maw={420} gap="sm">
            <PasswordInput label="Current password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.currentTarget.value)} error={errors.current} />
            <NewPasswordInputs
              fields={{ password: next, confirmation, setPassword: setNext, setConfirmation, errors }}
              labels={['New password', 'Confirm new password']}
            />
            <Group>
              <Button type="submit" loading={changePassword.isPending}>
                Change password
              </Button>
            </Group>
            <Text size="xs" c="dimmed">
              Changing your password signs you out on your other browsers and devices.
            </Text>
          </Stack>
        </form>
      ) : (
        <Text size="sm">
          Your account has no password yet: you log in with Facebook.{' '}
          <Anchor component={Link} to={`${paths.setPassword}?email=${encodeURIComponent(email)}`}>
            Set a password
          </Anchor>{' '}
          to also log in with your email.
        </Text>
      )}
      <Group mt="md">
        <Button variant="default" onClick={onLogoutEverywhere}>
          Sign out everywhere
        </Button>
      </Group>
    </Card>
  );
}
