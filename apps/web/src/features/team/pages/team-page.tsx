import { Alert, Badge, Button, Card, CopyButton, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { InviteUserResponse, TeamUser } from '@sales-agent/shared/schemas/user';
import { useState } from 'react';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { SimpleTable } from '../../../components/simple-table.tsx';
import { useAuth } from '../../../lib/auth.ts';
import { teamQuery, useInviteUser, usePatchUser } from '../api/team.ts';
import { CannedRepliesCard } from '../components/canned-replies-card.tsx';

const ROLE_OPTIONS = [
  { value: 'NORMAL', label: 'Team member' },
  { value: 'ADMIN', label: 'Admin' },
];

/** /admin/users (issue 24): who is on the team, invite by email, change roles, deactivate; the canned replies. */
export default function TeamPage() {
  const team = useQuery(teamQuery());
  return (
    <Stack gap="md">
      <PageTitle>Team</PageTitle>
      <InviteForm />
      <Title order={2} fz="h4">
        Users
      </Title>
      <QueryState query={team} title="Users">{(users) => <UsersTable users={users} />}</QueryState>
      <CannedRepliesCard />
    </Stack>
  );
}

function InviteForm() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'ADMIN' | 'NORMAL'>('NORMAL');
  const [invited, setInvited] = useState<InviteUserResponse | null>(null);
  const invite = useInviteUser();
  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate({ email: email.trim(), role }, { onSuccess: (answer) => (setInvited(answer), setEmail('')) });
        }}
      >
        <Stack gap="sm">
          <Title order={2} fz="h4">
            Invite a teammate
          </Title>
          <Group align="flex-end" wrap="wrap">
            <TextInput label="Email" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} w={300} />
            <Select label="Role" data={ROLE_OPTIONS} value={role} onChange={(v) => v && setRole(v as 'ADMIN' | 'NORMAL')} allowDeselect={false} w={170} />
            <Button type="submit" loading={invite.isPending}>
              Invite
            </Button>
          </Group>
          {invited && (
            <Alert color="green" title={invited.mailed ? 'Invitation sent' : 'Invitation created'} data-testid="invitation">
              <Stack gap="xs">
                <Text size="sm">{invited.message}</Text>
                <Group gap="xs" align="flex-end" wrap="nowrap">
                  <TextInput label="Invitation link" value={invited.link} readOnly style={{ flex: 1 }} onFocus={(e) => e.currentTarget.select()} />
                  <CopyButton value={invited.link}>
                    {({ copied, copy }) => (
                      <Button variant="light" onClick={copy}>
                        {copied ? 'Copied' : 'Copy link'}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
              </Stack>
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function UsersTable({ users }: { users: TeamUser[] }) {
  const patch = usePatchUser();
  const auth = useAuth();
  return (
    <SimpleTable minWidth={640} aria-label="Users" striped columns={['Email', 'Role', 'Status', 'Messaging accounts', 'Actions']}>
      {users.map((u) => {
        const self = u.email === auth.email;
        return (
          <Table.Tr key={u.id} data-testid="team-user" aria-label={u.email}>
            <Table.Td>{u.email}</Table.Td>
            <Table.Td>
              <Select
                size="xs"
                aria-label={`Role of ${u.email}`}
                data={ROLE_OPTIONS}
                value={u.role}
                onChange={(v) => v && v !== u.role && patch.mutate({ user: u, change: { role: v as 'ADMIN' | 'NORMAL' } })}
                allowDeselect={false}
                disabled={self}
                w={150}
              />
            </Table.Td>
            <Table.Td>
              {!u.active ? (
                <Badge color="gray" variant="light">Deactivated</Badge>
              ) : u.pending ? (
                <Badge color="orange" variant="light">Invited</Badge>
              ) : (
                <Badge color="green" variant="light">Active</Badge>
              )}
            </Table.Td>
            <Table.Td>{u.role === 'ADMIN' ? 'All' : u.messagingAccountIds.length}</Table.Td>
            <Table.Td>
              {!self && (
                <Button
                  size="xs"
                  variant="light"
                  color={u.active ? 'red' : 'green'}
                  onClick={() => patch.mutate({ user: u, change: { active: !u.active } })}
                  aria-label={`${u.active ? 'Deactivate' : 'Activate'} ${u.email}`}
                >
                  {u.active ? 'Deactivate' : 'Activate'}
                </Button>
              )}
            </Table.Td>
          </Table.Tr>
        );
      })}
    </SimpleTable>
  );
}
