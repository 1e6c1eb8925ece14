import { Alert, Button, Card, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { validateEmail } from '../../auth/components/validation.ts';
import { createInvitation, invitationsQuery, revokeInvitation, type InvitationCreated } from '../api/invitations.ts';

/**
 * Invitations to register (REGISTRATION=invite, docs/deployment.md): an ADMIN invites an email and sends the
 * link; it works once, for that email. Shown under the permissions list (who may see what, and who may join).
 */
export function InvitationsPanel() {
  const invitations = useQuery(invitationsQuery());
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: invitationsQuery().queryKey });

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const problem = validateEmail(email);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      setCreated(await createInvitation(email.trim()));
      setEmail('');
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  const revoke = async (id: number) => {
    try {
      toastSuccess((await revokeInvitation(id)).message);
    } catch (err) {
      toastError(err);
    } finally {
      await refresh();
    }
  };

  return (
    <Card withBorder mt="xl" p="md" component="section" aria-labelledby="invitations-title">
      <Title order={2} size="h4" id="invitations-title" mb="xs">
        Invitations to register
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        With REGISTRATION=invite only invited people can create an account. The link works once, for the invited email.
      </Text>
      <form onSubmit={submit} noValidate>
        <Group align="flex-start">
          <TextInput
            label="Email to invite"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={error}
            style={{ flex: 1, minWidth: 220 }}
          />
          <Button type="submit" loading={busy} mt={25}>
            Invite
          </Button>
        </Group>
      </form>
      {created ? (
        <Alert color="green" mt="md" title={`Invitation for ${created.email}`} data-testid="invitation-created">
          <Stack gap="xs">
            <Text size="sm">{created.message}</Text>
            <TextInput aria-label="Invitation link" readOnly value={created.link} onFocus={(e) => e.currentTarget.select()} />
          </Stack>
        </Alert>
      ) : null}
      {invitations.data && invitations.data.length > 0 ? (
        <Table mt="md" aria-label="Open invitations">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Revoke</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {invitations.data.map((invitation) => (
              <Table.Tr key={invitation.id}>
                <Table.Td>{invitation.email}</Table.Td>
                <Table.Td>{new Date(invitation.expiresAt).toLocaleString()}</Table.Td>
                <Table.Td>
                  <Button size="xs" color="red" variant="light" onClick={() => revoke(invitation.id)}>
                    Revoke
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Card>
  );
}
