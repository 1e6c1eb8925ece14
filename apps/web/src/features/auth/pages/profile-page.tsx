import { Alert, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconTrash, IconUnlink } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useLogout, useAuth } from '../../../lib/auth.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { useDeleteUser } from '../api/auth.ts';
import { AccountSecurity } from '../components/account-security.tsx';
import { ResetLinkButton } from '../components/reset-link-button.tsx';
import { profileQuery, useDeleteUserMessagingAccount, useRemoveFromMyAccounts, userMessagingAccountsQuery } from '../api/profile.ts';
import { ConnectButtons, ReconnectButton } from '../../meta/components/connect-buttons.tsx';
import { isConnectType } from '../../meta/api/meta.ts';
import { PageName } from '../../meta/components/page-name.tsx';
import { TokenExpiry } from '../../meta/components/token-expiry.tsx';

/** Spec §2.14 profile: the email, connected accounts and Delete User. */
export default function ProfilePage() {
  const { email = '' } = useParams();
  const auth = useAuth();
  const profile = useQuery(profileQuery(email));
  const accounts = useQuery({ ...userMessagingAccountsQuery(email), enabled: profile.isSuccess });
  const deleteUser = useDeleteUser();
  const removeGrant = useRemoveFromMyAccounts(email);
  const deleteAccount = useDeleteUserMessagingAccount(email);
  const logout = useLogout();
  const navigate = useNavigate();

  if (profile.isPending) return <Loader />;
  if (profile.isError) {
    // Spec §8.3 'User not found' for an unknown email and for someone else's profile (403): a NORMAL user
    // learns nothing about who else has an account.
    const missing = profile.error instanceof ApiError && (profile.error.status === 404 || profile.error.status === 403);
    return (
      <Alert color="red" title="Profile">
        {missing ? 'User not found' : errorMessage(profile.error)}
      </Alert>
    );
  }
  const isSelf = profile.data.email === auth.email;
  const isAdmin = auth.role === 'ADMIN';

  const onDeleteUser = async () => {
    if (!(await confirmAction(`Delete the user ${profile.data.email}? This cannot be undone.`, { confirmLabel: 'Delete User' }))) return;
    deleteUser.mutate(profile.data.email, {
      onSuccess: async (_answer, deleted) => {
        if (deleted === auth.email) {
          await logout().catch(() => undefined);
          navigate(paths.home);
        } else {
          navigate(paths.admin.permissionList);
        }
      },
    });
  };

  const onRemoveGrant = async (id: number, name: string) => {
    if (!(await confirmAction(`Remove ${name} from your accounts? The account and its conversations stay for the other people who use it.`, { confirmLabel: 'Remove' }))) {
      return;
    }
    removeGrant.mutate(id);
  };

  const onDeleteAccount = async (id: number, name: string) => {
    if (!(await confirmAction(`Delete ${name}? This removes all conversations associated with this account.`))) return;
    deleteAccount.mutate(id);
  };

  return (
    <Stack>
      <PageTitle>Profile</PageTitle>
      <Card withBorder>
        <Text size="sm" c="dimmed">
          Email
        </Text>
        <Text fw={600} data-testid="profile-email">
          {profile.data.email}
        </Text>
        <Text size="sm" c="dimmed" mt="xs">
          Role: {profile.data.role === 'ADMIN' ? 'Administrator' : 'Team member'}
        </Text>
      </Card>
      <Card withBorder>
        <Title order={4} mb="sm">
          Connected accounts
        </Title>
        {accounts.isPending ? (
          <Loader size="sm" />
        ) : accounts.isError ? (
          <Text c="red">{errorMessage(accounts.error)}</Text>
        ) : accounts.data.length === 0 ? (
          <Text c="dimmed">No messaging accounts are connected to this user yet.</Text>
        ) : (
          <RecordTable
            aria-label="Connected accounts"
            records={accounts.data}
            columns={[
              { accessor: 'messagingAccount.type', title: 'Type', render: (a) => <ChannelBadge type={a.messagingAccount.type} /> },
              { accessor: 'messagingAccount.pageName', title: 'Page name', render: (a) => <PageName account={a.messagingAccount} /> },
              { accessor: 'messagingAccount.pageId', title: 'Page id' },
              {
                accessor: 'token',
                title: 'Token',
                render: (a) => (
                  <Group gap="xs" wrap="nowrap">
                    <TokenExpiry expirationDate={a.messagingAccount.expirationDate} reconnectNeeded={a.messagingAccount.reconnectNeeded} />
                    {/* Connecting the same account again stores a fresh token and clears the flag. */}
                    {isSelf && a.messagingAccount.reconnectNeeded && isConnectType(a.messagingAccount.type) ? (
                      <ReconnectButton type={a.messagingAccount.type} />
                    ) : null}
                  </Group>
                ),
              },
              {
                accessor: 'actions',
                title: 'Actions',
                // Deleting removes the conversations every granted user sees: the owner's or an ADMIN's call.
                // Someone only granted the account takes it off their own list instead (issue 13 item 3).
                render: (a) =>
                  a.isOwner || isAdmin ? (
                    <Button
                      size="xs"
                      color="red"
                      variant="light"
                      leftSection={<IconTrash size={14} aria-hidden />}
                      onClick={() => onDeleteAccount(a.messagingAccountId, a.messagingAccount.pageName)}
                    >
                      Delete
                    </Button>
                  ) : isSelf ? (
                    <Button
                      size="xs"
                      color="gray"
                      variant="light"
                      leftSection={<IconUnlink size={14} aria-hidden />}
                      // Two short lines on a phone keep the pinned column narrow.
                      maw={{ base: 130, sm: 'none' }}
                      h="auto"
                      py={4}
                      styles={{ label: { whiteSpace: 'normal' } }}
                      onClick={() => onRemoveGrant(a.messagingAccountId, a.messagingAccount.pageName)}
                    >
                      Remove from my accounts
                    </Button>
                  ) : null,
              },
            ]}
          />
        )}
        {isSelf ? (
          <Stack gap="xs" mt="md">
            <Text size="sm" c="dimmed">
              Connect a new account
            </Text>
            <ConnectButtons />
          </Stack>
        ) : null}
      </Card>
      {isSelf ? <AccountSecurity email={profile.data.email} hasPassword={profile.data.hasPassword} /> : null}
      <Group>
        {isAdmin && !isSelf ? <ResetLinkButton email={profile.data.email} /> : null}
        <Button color="red" onClick={onDeleteUser}>
          Delete User
        </Button>
      </Group>
    </Stack>
  );
}
