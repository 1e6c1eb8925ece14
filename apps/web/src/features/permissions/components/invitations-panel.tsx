import { Button, Card, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useEmailForm } from '../../auth/components/use-email-form.ts';
import { type InvitationCreated, invitationsQuery, useCreateInvitation, useRevokeInvitation } from '../api/invitations.ts';
import { ShownOnce } from '../../../components/shown-once.tsx';
import { SimpleTable } from '../../../components/simple-table.tsx';

/**
 * Invitations to register (REGISTRATION=invite, docs/deployment.md): an ADMIN invites an email and sends the
 * link; it works once, for that email. Shown under the permissions list (who may see what, and who may join).
 */
export function InvitationsPanel() {
  const invitations = useQuery(invitationsQuery());
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const create = useCreateInvitation();
  const revoke = useRevokeInvitation();
  const form = useEmailForm((email) =>
    create.mutateAsync(email).then(
      (invitation) => {
        setCreated(invitation);
        form.clear();
      },
      () => undefined, // the hook has shown why
    ),
  );

  return (
    <Card withBorder mt="xl" p="md" component="section" aria-labelledby="invitations-title">
      <Title order={2} size="h4" id="invitations-title" mb="xs">
        Invitations to register
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        With REGISTRATION=invite only invited people can create an account. The link works once, for the invited email.
      </Text>
      <form onSubmit={form.submit} noValidate>
        <Group align="flex-start">
          <TextInput
            label="Email to invite"
            {...form.inputProps}
            style={{ flex: 1, minWidth: 220 }}
          />
          <Button type="submit" loading={form.busy} mt={25}>
            Invite
          </Button>
        </Group>
      </form>
      {created ? (
        <ShownOnce title={`Invitation for ${created.email}`} label="Invitation link" value={created.link} testId="invitation-created">
          <Text size="sm">{created.message}</Text>
        </ShownOnce>
      ) : null}
      {invitations.data && invitations.data.length > 0 ? (
        <SimpleTable mt="md" aria-label="Open invitations" columns={['Email', 'Expires', 'Revoke']}>
          {invitations.data.map((invitation) => (
            <Table.Tr key={invitation.id}>
              <Table.Td>{invitation.email}</Table.Td>
              <Table.Td>{new Date(invitation.expiresAt).toLocaleString()}</Table.Td>
              <Table.Td>
                <Button size="xs" color="red" variant="light" onClick={() => revoke.mutate(invitation.id)}>
                  Revoke
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </SimpleTable>
      ) : null}
    </Card>
  );
}
