import { Anchor, Button, Group, Text } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { ResetLinkButton } from '../../auth/components/reset-link-button.tsx';
import { permissionsQuery, type PermissionView, useRevokePermission } from '../api/permissions.ts';
import { InvitationsPanel } from '../components/invitations-panel.tsx';

/** Spec §2.10 list: ID, User (to the profile), Messaging Account (to its edit page), Delete. */
export default function PermissionListPage() {
  const permissions = useQuery(permissionsQuery());
  const revoke = useRevokePermission();

  const onDelete = async (permission: PermissionView) => {
    const ok = await confirmAction(
      `Remove the access of ${permission.user.email} to ${permission.messagingAccount.pageName}? They will no longer see its conversations.`,
    );
    if (!ok) return;
    revoke.mutate(permission.id);
  };

  return (
    <>
      {/* On a phone the button wraps under the title: keep it off the table. */}
      <Group justify="space-between" align="flex-start" mb={{ base: 'md', sm: 0 }}>
        <PageTitle>User messaging account permissions</PageTitle>
        <Button component={Link} to={paths.admin.permissionCreate}>
          Grant access
        </Button>
      </Group>
      <QueryState query={permissions} title="Permissions">
        {(rows) =>
          rows.length === 0 ? (
            <Text c="dimmed">No user has been given access to a messaging account yet.</Text>
          ) : (
            // The Delete column stays pinned in view when the table scrolls on a phone (RecordTable).
            <RecordTable
              aria-label="Permissions"
              records={rows}
              columns={[
                { accessor: 'id', title: 'ID' },
                {
                  accessor: 'user.email',
                  title: 'User',
                  render: (permission) => (
                    <Anchor component={Link} to={paths.profile(permission.user.email)}>
                      {permission.user.email}
                    </Anchor>
                  ),
                },
                {
                  accessor: 'messagingAccount.pageName',
                  title: 'Messaging Account',
                  render: (permission) => (
                    <Anchor component={Link} to={paths.admin.messagingAccountEdit(permission.messagingAccountId)}>
                      {permission.messagingAccount.pageName}
                    </Anchor>
                  ),
                },
                {
                  accessor: 'password',
                  title: 'Password',
                  // A one-time link for the user to set a new password (issue 29), to copy and send.
                  render: (permission) => <ResetLinkButton email={permission.user.email} size="xs" />,
                },
                {
                  accessor: 'actions',
                  title: 'Delete',
                  render: (permission) => (
                    <Button size="xs" color="red" variant="light" leftSection={<IconTrash size={14} aria-hidden />} onClick={() => onDelete(permission)}>
                      Delete
                    </Button>
                  ),
                },
              ]}
            />
          )
        }
      </QueryState>
      <InvitationsPanel />
    </>
  );
}
