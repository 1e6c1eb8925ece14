import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessagingAccountSaveBody } from '@sales-agent/shared/schemas/messaging-account';
import { useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { QueryState } from '../../../components/query-state.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { messagingAccountQuery, messagingAccountsQuery, saveMessagingAccount } from '../api/messaging-accounts.ts';
import { MessagingAccountForm } from '../components/messaging-account-form.tsx';

/** Spec §2.7 create (/admin/messaging-accounts/create) and edit (/admin/messaging-accounts/{id}/edit). */
export default function MessagingAccountEditPage() {
  const { id } = useParams();
  const account = useQuery({ ...messagingAccountQuery(id ?? ''), enabled: id !== undefined });
  const client = useQueryClient();
  const navigate = useNavigate();
  const backToList = () => navigate(paths.admin.messagingAccountList);

  const submit = async (body: MessagingAccountSaveBody) => {
    try {
      const { message } = await saveMessagingAccount(body);
      toastSuccess(message);
      await client.invalidateQueries({ queryKey: messagingAccountsQuery().queryKey });
      backToList();
    } catch (err) {
      toastError(err);
    }
  };

  if (id === undefined) {
    return (
      <>
        <PageTitle>Create messaging account</PageTitle>
        <MessagingAccountForm onSubmit={submit} onCancel={backToList} />
      </>
    );
  }
  return (
    <QueryState query={account} title="Messaging account">
      {(data) => (
        <>
          <PageTitle>{`Edit messaging account #${data.id}`}</PageTitle>
          <MessagingAccountForm key={data.id} account={data} onSubmit={submit} onCancel={backToList} />
        </>
      )}
    </QueryState>
  );
}
