import { Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { accountOptionsQuery, useGrantPermission } from '../api/permissions.ts';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Spec §2.10 create: User Email (a valid email), Messaging Account (sent as a number), Save and Cancel. */
export default function PermissionCreatePage() {
  const [userEmail, setUserEmail] = useState('');
  const [accountId, setAccountId] = useState<string | null>(null);
  const [errors, setErrors] = useState<{ userEmail?: string; accountId?: string }>({});
  const grant = useGrantPermission();
  const accounts = useQuery(accountOptionsQuery());
  const navigate = useNavigate();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const email = userEmail.trim();
    const next = {
      userEmail: !email ? 'Email is required' : EMAIL_PATTERN.test(email) ? undefined : 'Enter a valid email address',
      accountId: accountId ? undefined : 'Choose a messaging account',
    };
    setErrors(next);
    if (next.userEmail || next.accountId) return;
    grant.mutate({ userEmail: email, messagingAccountId: Number(accountId) }, { onSuccess: () => navigate(paths.admin.permissionList) });
  };

  return (
    <>
      <PageTitle>Grant access to a messaging account</PageTitle>
      <form onSubmit={submit} noValidate>
        <Stack maw={480}>
          <TextInput
            label="User Email"
            type="email"
            autoComplete="off"
            value={userEmail}
            onChange={(e) => setUserEmail(e.currentTarget.value)}
            withAsterisk
            error={errors.userEmail}
          />
          <Select
            label="Messaging Account"
            placeholder={accounts.isPending ? 'Loading accounts…' : 'Choose an account'}
            data={accounts.data ?? []}
            value={accountId}
            onChange={setAccountId}
            searchable
            nothingFoundMessage="No messaging account matches"
            withAsterisk
            error={accounts.isError ? `Could not load messaging accounts: ${errorMessage(accounts.error)}` : errors.accountId}
          />
          <Group>
            <Button type="submit" loading={grant.isPending}>
              Save
            </Button>
            <Button variant="default" onClick={() => navigate(paths.admin.permissionList)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
