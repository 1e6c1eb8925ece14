import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { JsonConfigEditor, requireJsonObject } from '../../../components/json-config-editor.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { messagingAccountQuery, messagingAccountsQuery, saveMessagingAccountConfig } from '../api/messaging-accounts.ts';

/** Spec §2.7 config: a JSON editor with Save; the heading is cut to 50 characters. */
export default function MessagingAccountConfigPage() {
  const { id = '' } = useParams();
  const account = useQuery(messagingAccountQuery(id));
  const client = useQueryClient();

  const save = async (text: string) => {
    const message = await saveMessagingAccountConfig(id, text);
    await client.invalidateQueries({ queryKey: messagingAccountsQuery().queryKey });
    return message;
  };
  return (
    <QueryState query={account} title="Messaging account">
      {(data) => (
        <JsonConfigEditor
          key={id}
          heading={`Config of ${data.pageName} (${data.type})`}
          initialText={data.config}
          onSave={save}
          validate={requireJsonObject}
          description="Channel settings of this account as a JSON object."
        />
      )}
    </QueryState>
  );
}
