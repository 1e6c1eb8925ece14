import { Anchor, Button, Group, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { paths } from '../../../config/paths.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { permissionsQuery, revokePermission, type PermissionView } from '../api/permissions.ts';

/** Spec §2.10 list: ID, User (to the profile), Messaging Account (to its edit page), Delete. */
export default function PermissionListPage() {
  const permissions = useQuery(permissionsQuery());
  const client = useQueryClient();

  const onDelete = async (permission: PermissionView) => {
    const ok = await confirmAction(
      `Remove the access of ${permission.user.email} to ${permission.messagingAccount.pageName}? They will no longer see its conversations.`,
    );
    if (!ok) return;
    try {
      const { message } = await revokePermission(permission.id);
      toastSuccess(message);
    } catch (err) {
      toastError(err);
    } finally {
      await client.invalidateQueries({ queryKey: permissionsQuery().queryKey });
    }
  };

  return (
    <>
      <Group justify="space-between" align="flex-start">
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
            <Table.ScrollContainer minWidth={520}>
              <Table striped highlightOnHover aria-label="Permissions">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>ID</Table.Th>
                    <Table.Th>User</Table.Th>
                    <Table.Th>Messaging Account</Table.Th>
                    <Table.Th>Delete</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((permission) => (
                    <Table.Tr key={permission.id}>
                      <Table.Td>{permission.id}</Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={paths.profile(permission.user.email)}>
                          {permission.user.email}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={paths.admin.messagingAccountEdit(permission.messagingAccountId)}>
                          {permission.messagingAccount.pageName}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Button size="xs" color="red" variant="light" onClick={() => onDelete(permission)}>
                          Delete
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </>
  );
}
