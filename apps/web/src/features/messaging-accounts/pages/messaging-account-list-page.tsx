import { Anchor, Button, Group, Table, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { paths } from '../../../config/paths.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { deleteMessagingAccount, messagingAccountsQuery, type MessagingAccountView } from '../api/messaging-accounts.ts';
import { Expiration } from '../components/expiration.tsx';

/** Spec §5: the exact confirmation text. */
const DELETE_ACCOUNT_CONFIRMATION =
  'Are you sure you want to delete this account? This will delete all conversations related to this account';

/** Spec §2.7: every messaging account with Edit, Config, Conversations and Delete. */
export default function MessagingAccountListPage() {
  const accounts = useQuery(messagingAccountsQuery());
  const client = useQueryClient();

  const onDelete = async (account: MessagingAccountView) => {
    if (!(await confirmAction(DELETE_ACCOUNT_CONFIRMATION, { title: `Delete ${account.pageName}?`, confirmLabel: 'Confirm' }))) return;
    try {
      await deleteMessagingAccount(account.id);
      toastSuccess('Account deleted successfully');
    } catch (err) {
      toastError(err);
    } finally {
      await client.invalidateQueries({ queryKey: messagingAccountsQuery().queryKey });
    }
  };

  return (
    <>
      <Group justify="space-between" align="flex-start">
        <PageTitle>Messaging accounts</PageTitle>
        <Button component={Link} to={paths.admin.messagingAccountCreate}>
          Create account
        </Button>
      </Group>
      <QueryState query={accounts} title="Messaging accounts">
        {(rows) =>
          rows.length === 0 ? (
            <Text c="dimmed">No messaging accounts yet. Create one to connect a page or number.</Text>
          ) : (
            <Table.ScrollContainer minWidth={900}>
              <Table striped highlightOnHover aria-label="Messaging accounts">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>ID</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Page name</Table.Th>
                    <Table.Th>Page id</Table.Th>
                    <Table.Th>Users</Table.Th>
                    <Table.Th>Expiration</Table.Th>
                    <Table.Th>Conversation type</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((account) => (
                    <Table.Tr key={account.id}>
                      <Table.Td>{account.id}</Table.Td>
                      <Table.Td>{account.type}</Table.Td>
                      <Table.Td>{account.pageName}</Table.Td>
                      <Table.Td>{account.pageId}</Table.Td>
                      <Table.Td>
                        {account.user_messaging_accounts.length === 0 ? (
                          <Text c="dimmed">—</Text>
                        ) : (
                          account.user_messaging_accounts.map((grant) => (
                            <Anchor key={grant.id} component={Link} to={paths.profile(grant.user.email)} display="block" size="sm">
                              {grant.user.email}
                            </Anchor>
                          ))
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Expiration value={account.expirationDate} reconnectNeeded={account.reconnectNeeded} />
                      </Table.Td>
                      <Table.Td>
                        {account.conversationType ? (
                          `#${account.conversationType.id} ${account.conversationType.title ?? ''}`.trim()
                        ) : (
                          <Text c="dimmed">—</Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Button size="xs" variant="light" component={Link} to={paths.admin.messagingAccountEdit(account.id)}>
                            Edit
                          </Button>
                          <Button size="xs" variant="light" component={Link} to={paths.admin.messagingAccountConfig(account.id)}>
                            Config
                          </Button>
                          {account.conversationTypeId !== null ? (
                            <Button
                              size="xs"
                              variant="light"
                              component={Link}
                              to={`${paths.conversationList}?conversationType=${account.conversationTypeId}`}
                            >
                              Conversations
                            </Button>
                          ) : (
                            <Button size="xs" variant="light" disabled title="Set a conversation type to see its conversations">
                              Conversations
                            </Button>
                          )}
                          <Button size="xs" color="red" variant="light" onClick={() => onDelete(account)}>
                            Delete
                          </Button>
                        </Group>
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
