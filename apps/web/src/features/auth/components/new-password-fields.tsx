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
      <NewPasswordInputs fields={form} labels={['Password', 'Confirm password']} />
    </>
  );
}

/** A new password and its confirmation (register, set password, change password), with their spec §5 errors. */
export function NewPasswordInputs(props: {
  fields: Pick<NewPasswordForm, 'password' | 'confirmation' | 'setPassword' | 'setConfirmation'> & { errors: Omit<NewPasswordErrors, 'email'> };
  labels: [password: string, confirmation: string];
}) {
  const { fields } = props;
  const inputs = [
    { label: props.labels[0], value: fields.password, set: fields.setPassword, error: fields.errors.password },
    { label: props.labels[1], value: fields.confirmation, set: fields.setConfirmation, error: fields.errors.confirmation },
  ];
  return inputs.map((input) => (
    <PasswordInput
      key={input.label}
      label={input.label}
      autoComplete="new-password"
      value={input.value}
      onChange={(e) => input.set(e.currentTarget.value)}
      error={input.error}
    />
  ));
}
