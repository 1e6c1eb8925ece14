import { Alert, Loader } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { JsonConfigEditor, requireJsonObject } from '../../../components/json-config-editor.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { messagingAccountQuery, messagingAccountsQuery, saveMessagingAccountConfig } from '../api/messaging-accounts.ts';

/** Spec §2.7 config: a JSON editor with Save; the heading is cut to 50 characters. */
export default function MessagingAccountConfigPage() {
  const { id = '' } = useParams();
  const account = useQuery(messagingAccountQuery(id));
  const client = useQueryClient();

  if (account.isPending) return <Loader />;
  if (account.isError) {
    return (
      <Alert color="red" title="Messaging account">
        {errorMessage(account.error)}
      </Alert>
    );
  }
  const save = async (text: string) => {
    const message = await saveMessagingAccountConfig(id, text);
    await client.invalidateQueries({ queryKey: messagingAccountsQuery().queryKey });
    return message;
  };
  return (
    <JsonConfigEditor
      key={id}
      heading={`Config of ${account.data.pageName} (${account.data.type})`}
      initialText={account.data.config}
      onSave={save}
      validate={requireJsonObject}
      description="Channel settings of this account as a JSON object."
    />
  );
}
