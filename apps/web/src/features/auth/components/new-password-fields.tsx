import { PasswordInput, TextInput } from '@mantine/core';
import { useState } from 'react';
import { validateEmail, validateNewPassword } from './validation.ts';

interface NewPasswordErrors {
  email?: string;
  password?: string;
  confirmation?: string;
}

/** State of the email + password + confirmation fields shared by register and set-password (spec §5). */
export function useNewPasswordForm(initialEmail = '') {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<NewPasswordErrors>({});
  return {
    email,
    password,
    confirmation,
    errors,
    setEmail,
    setPassword,
    setConfirmation,
    /** Shows the spec §5 messages; true when the fields may be sent. */
    validate(): boolean {
      const next = { email: validateEmail(email) ?? undefined, ...validateNewPassword(password, confirmation) };
      setErrors(next);
      return !(next.email || next.password || next.confirmation);
    },
  };
}

export type NewPasswordForm = ReturnType<typeof useNewPasswordForm>;

export function NewPasswordFields({ form }: { form: NewPasswordForm }) {
  return (
    <>
      <TextInput
        label="Email"
        type="email"
        autoComplete="email"
        value={form.email}
        onChange={(e) => form.setEmail(e.currentTarget.value)}
        error={form.errors.email}
      />
      <PasswordInput
        label="Password"
        autoComplete="new-password"
        value={form.password}
        onChange={(e) => form.setPassword(e.currentTarget.value)}
        error={form.errors.password}
      />
      <PasswordInput
        label="Confirm password"
        autoComplete="new-password"
        value={form.confirmation}
        onChange={(e) => form.setConfirmation(e.currentTarget.value)}
        error={form.errors.confirmation}
      />
    </>
  );
}
