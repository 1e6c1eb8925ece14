import { type FormEvent, useState } from 'react';
import { validateEmail } from './validation.ts';

/**
 * The one-email form (forgot password, invite someone): the typed email, its validation error shown under the
 * field, and a submit that sends the trimmed email only when it is valid, busy meanwhile. `send` handles its own
 * outcome (a notice, a toast) and must not throw.
 */
export function useEmailForm(send: (email: string) => Promise<void>) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validateEmail(email);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      await send(email.trim());
    } finally {
      setBusy(false);
    }
  };
  return {
    busy,
    submit,
    clear: () => setEmail(''),
    /** For the email TextInput. */
    inputProps: { value: email, onChange: (e: { currentTarget: HTMLInputElement }) => setEmail(e.currentTarget.value), error },
  };
}
