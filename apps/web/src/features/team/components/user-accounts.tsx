import { Button, Checkbox, Modal, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { TeamUser } from '@sales-agent/shared/schemas/user';
import { useState } from 'react';
import { QueryState } from '../../../components/query-state.tsx';
import { accountOptionsQuery, permissionsQuery, useGrantPermission, useRevokePermission } from '../../permissions/api/permissions.ts';
import { teamKeys } from '../api/team.ts';

/**
 * A team member's messaging accounts, granted and revoked from their row on the Team page (issue 24) through
 * the permission API (POST /api/admin/user-messaging-accounts/create, DELETE …/{id}): no email to type.
 */
export function UserAccountsButton({ user }: { user: TeamUser }) {
  const [open, setOpen] = useState(false);
  const count = user.messagingAccountIds.length;
  return (
    <>
      <Button size="xs" variant="subtle" onClick={() => setOpen(true)} aria-label={`Messaging accounts of ${user.email}`}>
        {count === 1 ? '1 account' : `${count} accounts`}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Messaging accounts of ${user.email}`} closeButtonProps={{ 'aria-label': 'Close' }}>
        {open && <UserAccounts user={user} />}
      </Modal>
    </>
  );
}

function UserAccounts({ user }: { user: TeamUser }) {
  const accounts = useQuery(accountOptionsQuery());
  const grants = useQuery(permissionsQuery());
  const client = useQueryClient();
  const grant = useGrantPermission();
  const revoke = useRevokePermission();
  const refreshTeam = () => client.invalidateQueries({ queryKey: teamKeys.all() });
  const mine = (grants.data ?? []).filter((g) => g.user.email === user.email);
  const busy = grant.isPending || revoke.isPending;
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        A team member sees and answers only the conversations of the accounts ticked here.
      </Text>
      <QueryState query={accounts} title="Messaging accounts">
        {(options) =>
          options.length === 0 ? (
            <Text size="sm">No messaging accounts yet: connect one first.</Text>
          ) : (
            <Stack gap={6} role="group" aria-label="Granted messaging accounts">
              {options.map((account) => {
                const granted = mine.find((g) => g.messagingAccountId === Number(account.value));
                return (
                  <Checkbox
                    key={account.value}
                    label={account.label}
                    checked={Boolean(granted)}
                    disabled={busy || !grants.isSuccess}
                    onChange={(e) => {
                      if (e.currentTarget.checked) {
                        grant.mutate({ userEmail: user.email, messagingAccountId: Number(account.value) }, { onSettled: refreshTeam });
                      } else if (granted) {
                        revoke.mutate(granted.id, { onSettled: refreshTeam });
                      }
                    }}
                  />
                );
              })}
            </Stack>
          )
        }
      </QueryState>
    </Stack>
  );
}
