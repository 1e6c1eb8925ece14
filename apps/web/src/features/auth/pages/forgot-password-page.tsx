import { Alert, Anchor, Button, Card, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { forgotPassword } from '../api/auth.ts';
import { useEmailForm } from '../components/use-email-form.ts';

/**
 * "Forgot password?": the user types their email and is told a link is on its way if an account uses it; the
 * answer is the same for every email (issue 29). Without email sending on the server, the answer says to ask an
 * administrator, who can create a link.
 */
export default function ForgotPasswordPage() {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const form = useEmailForm((email) =>
    forgotPassword(email).then(
      (answer) => setOutcome({ ok: true, text: answer.message }),
      (err: unknown) => setOutcome({ ok: false, text: errorMessage(err) }),
    ),
  );

  return (
    <Card withBorder maw={420} mx="auto" mt="xl" p="lg">
      <PageTitle>Forgot password</PageTitle>
      <form onSubmit={form.submit} noValidate>
        <Stack>
          <Text size="sm">Type the email of your account. We will send it a link to set a new password.</Text>
          <TextInput label="Email" type="email" autoComplete="email" {...form.inputProps} />
          <Button type="submit" loading={form.busy}>
            Send link
          </Button>
          {outcome ? (
            <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'} data-testid="forgot-password-result">
              {outcome.text}
            </Alert>
          ) : null}
          <Anchor component={Link} to={paths.login} size="sm">
            Back to login
          </Anchor>
        </Stack>
      </form>
    </Card>
  );
}
