import { Button, Group, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ACCOUNT_TYPES, type AccountType, DEFAULT_ACCOUNT_TYPE } from '@sales-agent/shared/enums';
import { CHANNEL_LABELS } from '../../../components/channel-badge.tsx';
import type { MessagingAccountSaveBody } from '@sales-agent/shared/schemas/messaging-account';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';
import { conversationTypeOptionsQuery, type MessagingAccountView } from '../api/messaging-accounts.ts';

/** The type select says what each type is; FACEBOOK is a Facebook Page answered in Messenger. */
const TYPE_OPTION_LABELS: Record<AccountType, string> = { ...CHANNEL_LABELS, FACEBOOK: 'Facebook Page (Messenger)' };

type Errors = Partial<Record<'type' | 'accessToken' | 'pageId' | 'pageName', string>>;

export interface MessagingAccountFormProps {
  /** The account being edited; absent when creating. */
  account?: MessagingAccountView;
  onSubmit: (body: MessagingAccountSaveBody) => Promise<void>;
  onCancel: () => void;
}

/**
 * The messaging account form of spec §5: type, access token, page id and page name required; expiration
 * date and conversation type optional (an empty type is sent as null). The stored token is never shown:
 * on edit the field starts empty, says a token is set (with its masked hint) and keeps it unless replaced.
 */
export function MessagingAccountForm({ account, onSubmit, onCancel }: MessagingAccountFormProps) {
  const editing = account !== undefined;
  const [type, setType] = useState<AccountType>(account?.type ?? DEFAULT_ACCOUNT_TYPE);
  const [accessToken, setAccessToken] = useState('');
  const [pageId, setPageId] = useState(account?.pageId ?? '');
  const [pageName, setPageName] = useState(account?.pageName ?? '');
  const [expirationDate, setExpirationDate] = useState(account?.expirationDate?.slice(0, 10) ?? '');
  const [conversationTypeId, setConversationTypeId] = useState<string | null>(
    account?.conversationTypeId != null ? String(account.conversationTypeId) : null,
  );
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const types = useQuery(conversationTypeOptionsQuery());

  // Keep the current choice selectable even when the list failed to load or no longer has it.
  const typeOptions = [...(types.data ?? [])];
  if (account?.conversationType && !typeOptions.some((o) => o.value === String(account.conversationType?.id))) {
    const current = account.conversationType;
    typeOptions.unshift({ value: String(current.id), label: `#${current.id} ${current.title ?? ''}`.trim() });
  }

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const next: Errors = {};
    if (!type) next.type = 'Type is required';
    if (!editing && !accessToken.trim()) next.accessToken = 'Access token is required';
    if (!pageId.trim()) next.pageId = 'Page id is required';
    if (!pageName.trim()) next.pageName = 'Page name is required';
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setBusy(true);
    try {
      await onSubmit({
        ...(editing ? { id: account.id } : {}),
        type,
        ...(accessToken.trim() ? { accessToken: accessToken.trim() } : {}),
        pageId: pageId.trim(),
        pageName: pageName.trim(),
        expirationDate: expirationDate || null,
        conversationTypeId: conversationTypeId ? Number(conversationTypeId) : null,
      });
    } finally {
      setBusy(false);
    }
  };

  const tokenHint = account?.accessTokenHint
    ? `A token is set (${account.accessTokenHint}). Leave empty to keep it, or enter a new one to replace it.`
    : 'A token is set but cannot be read with the current APP_SECRET. Enter it again to replace it.';

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={560}>
        <Select
          label="Type"
          data={ACCOUNT_TYPES.map((t) => ({ value: t, label: TYPE_OPTION_LABELS[t] }))}
          value={type}
          onChange={(value) => value && setType(value as AccountType)}
          allowDeselect={false}
          withAsterisk
          error={errors.type}
        />
        <PasswordInput
          label="Access token"
          description={editing ? tokenHint : 'Stored encrypted; it is never shown again.'}
          placeholder={editing ? 'Leave empty to keep the current token' : undefined}
          autoComplete="off"
          value={accessToken}
          onChange={(e) => setAccessToken(e.currentTarget.value)}
          withAsterisk={!editing}
          error={errors.accessToken}
        />
        <TextInput label="Page id" value={pageId} onChange={(e) => setPageId(e.currentTarget.value)} withAsterisk error={errors.pageId} />
        <TextInput label="Page name" value={pageName} onChange={(e) => setPageName(e.currentTarget.value)} withAsterisk error={errors.pageName} />
        <TextInput
          label="Expiration date"
          type="date"
          description="Optional. When the access token stops working."
          value={expirationDate}
          onChange={(e) => setExpirationDate(e.currentTarget.value)}
        />
        <Select
          label="Conversation type"
          placeholder={types.isPending ? 'Loading conversation types…' : 'None'}
          data={typeOptions}
          value={conversationTypeId}
          onChange={setConversationTypeId}
          clearable
          searchable
          nothingFoundMessage="No conversation type matches"
          description="Optional. The playbook the agent uses for this account's conversations."
          error={types.isError ? `Could not load conversation types: ${errorMessage(types.error)}` : undefined}
        />
        <Group>
          <Button type="submit" loading={busy}>
            Save
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
