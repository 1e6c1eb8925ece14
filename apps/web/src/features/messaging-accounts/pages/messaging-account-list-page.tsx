import { Anchor, Button, Group, Text } from '@mantine/core';
import { IconList } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { actionsColumn, DeleteAction, EditConfigActions, RecordTable } from '../../../components/record-table.tsx';
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
      {/* On a phone the button wraps under the title: keep it off the table. */}
      <Group justify="space-between" align="flex-start" mb={{ base: 'md', sm: 0 }}>
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
            // The Actions column stays pinned in view when the table scrolls on a phone (RecordTable).
            <RecordTable
              aria-label="Messaging accounts"
              records={rows}
              columns={[
                { accessor: 'id', title: 'ID' },
                { accessor: 'type', title: 'Type', render: (account) => <ChannelBadge type={account.type} /> },
                { accessor: 'pageName', title: 'Page name' },
                { accessor: 'pageId', title: 'Page id' },
                {
                  accessor: 'users',
                  title: 'Users',
                  render: (account) =>
                    account.user_messaging_accounts.length === 0 ? (
                      <Text c="dimmed">—</Text>
                    ) : (
                      account.user_messaging_accounts.map((grant) => (
                        <Anchor key={grant.id} component={Link} to={paths.profile(grant.user.email)} display="block" size="sm">
                          {grant.user.email}
                        </Anchor>
                      ))
                    ),
                },
                {
                  accessor: 'expirationDate',
                  title: 'Expiration',
                  render: (account) => <Expiration value={account.expirationDate} reconnectNeeded={account.reconnectNeeded} />,
                },
                {
                  accessor: 'conversationType',
                  title: 'Conversation type',
                  render: (account) =>
                    account.conversationType ? (
                      `#${account.conversationType.id} ${account.conversationType.title ?? ''}`.trim()
                    ) : (
                      <Text c="dimmed">—</Text>
                    ),
                },
                actionsColumn((account: MessagingAccountView) => (
                  <>
                    <EditConfigActions editTo={paths.admin.messagingAccountEdit(account.id)} configTo={paths.admin.messagingAccountConfig(account.id)} />
                    {account.conversationTypeId !== null ? (
                      <Button
                        size="xs"
                        variant="light"
                        leftSection={<IconList size={14} aria-hidden />}
                        component={Link}
                        to={`${paths.conversationList}?conversationType=${account.conversationTypeId}`}
                      >
                        Conversations
                      </Button>
                    ) : (
                      <Button size="xs" variant="light" leftSection={<IconList size={14} aria-hidden />} disabled title="Set a conversation type to see its conversations">
                        Conversations
                      </Button>
                    )}
                    <DeleteAction onClick={() => onDelete(account)} />
                  </>
                )),
              ]}
            />
          )
        }
      </QueryState>
    </>
  );
}
