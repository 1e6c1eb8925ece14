import { Alert, Button, Card, Group, Select, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { PUBLIC_CHAT_TITLE } from '@sales-agent/shared/schemas/conversation-type-config';
import { errorMessage } from '../../../lib/api-client.ts';
import { KnowledgeCollectionsSelect } from '../../knowledge/components/knowledge-collections-select.tsx';
import { type ConversationTypeDetail, messagingAccountOptionsQuery } from '../api/conversation-types.ts';

export interface ConversationTypeFormValues {
  title: string;
  /** What visitors and prospects see instead of the title (issue 24; the config's `publicTitle`); empty: "Chat". */
  publicTitle: string;
  rolePrompt: string;
  triggerConversationPrompt: string;
  checkingPrompt: string;
  errorPrompt: string;
  initialMessage: string;
  messagingAccountId: string | null;
  /** Listed on the public start page (issue 12); a new type is public, a '[D] ' duplicate is not. */
  isPublic: boolean;
  /** Issue 21: ids of the knowledge collections, as strings for the MultiSelect. */
  knowledgeCollectionIds: string[];
}

export function toFormValues(type?: ConversationTypeDetail): ConversationTypeFormValues {
  return {
    title: type?.title ?? '',
    publicTitle: type?.publicTitle ?? '',
    rolePrompt: type?.rolePrompt ?? '',
    triggerConversationPrompt: type?.triggerConversationPrompt ?? '',
    checkingPrompt: type?.checkingPrompt ?? '',
    errorPrompt: type?.errorPrompt ?? '',
    initialMessage: type?.initialMessage ?? '',
    messagingAccountId: type?.messagingAccountId ? String(type.messagingAccountId) : null,
    isPublic: type?.isPublic ?? true,
    knowledgeCollectionIds: (type?.knowledgeCollectionIds ?? []).map(String),
  };
}

/** The type's prompts, in the order of the form: what each is for, whether it is required, its height in rows. */
const PROMPT_FIELDS: {
  key: 'rolePrompt' | 'triggerConversationPrompt' | 'checkingPrompt' | 'errorPrompt' | 'initialMessage';
  label: string;
  description: string;
  required?: boolean;
  rows: [min: number, max: number];
}[] = [
  {
    key: 'rolePrompt',
    label: 'Role prompt',
    description: 'Who the agent is, what it sells and its tone. The system prompt of every reply.',
    required: true,
    rows: [6, 20],
  },
  {
    key: 'triggerConversationPrompt',
    label: 'Trigger conversation prompt',
    description: 'Decides whether the agent engages a new inbound conversation at all (optional).',
    rows: [3, 12],
  },
  {
    key: 'checkingPrompt',
    label: 'Checking prompt',
    description: 'A rule every drafted reply must pass before it is sent, e.g. “never promise discounts” (optional).',
    rows: [3, 12],
  },
  {
    key: 'errorPrompt',
    label: 'Error prompt',
    description: 'How the agent answers when something fails; the conversation is then marked as errored.',
    required: true,
    rows: [3, 12],
  },
  {
    key: 'initialMessage',
    label: 'Initial message',
    description: "The agent's first message of a new web chat, outbound message or call (optional).",
    rows: [2, 8],
  },
];

/** The server's limit of the config's `publicTitle` (packages/shared conversation-type-config.ts). */
const PUBLIC_TITLE_MAX = 80;

type Errors = Partial<Record<keyof ConversationTypeFormValues, string>>;

function validate(values: ConversationTypeFormValues): Errors {
  const errors: Errors = {};
  if (!values.rolePrompt.trim()) errors.rolePrompt = 'Role prompt is required';
  if (!values.errorPrompt.trim()) errors.errorPrompt = 'Error prompt is required';
  if (values.publicTitle.trim().length > PUBLIC_TITLE_MAX) errors.publicTitle = `Public title must be at most ${PUBLIC_TITLE_MAX} characters`;
  return errors;
}

/**
 * The fields of a conversation type (spec §3, DESIGN.md §6). Each description tells the admin what the
 * agent does with the field, because the prompts are the whole playbook.
 */
export function ConversationTypeForm(props: {
  initial: ConversationTypeFormValues;
  onSubmit: (values: ConversationTypeFormValues) => void;
  saving: boolean;
}) {
  const [values, setValues] = useState(props.initial);
  const [errors, setErrors] = useState<Errors>({});
  const accounts = useQuery(messagingAccountOptionsQuery());

  const field = (key: Exclude<keyof ConversationTypeFormValues, 'isPublic' | 'knowledgeCollectionIds'>) => ({
    value: values[key] ?? '',
    error: errors[key],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [key]: value }));
    },
  });

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    props.onSubmit(values);
  };

  // The account list may be unavailable (not built yet, or failing); the form stays usable without it.
  const accountOptions = accounts.data ?? [];
  const selectedMissing =
    values.messagingAccountId && !accountOptions.some((o) => o.value === values.messagingAccountId)
      ? [{ value: values.messagingAccountId, label: `#${values.messagingAccountId}` }]
      : [];

  return (
    <Card withBorder component="form" onSubmit={submit} noValidate aria-label="Conversation type">
      <Stack>
        <TextInput label="Title" description="Your team's name for this type, shown in lists; the role prompt is shown when empty." {...field('title')} />
        <TextInput
          label="Public title"
          description={`What visitors and prospects see, e.g. "Talk to Sunny Roofs": the chat's name, and this type's name on the start page instead of the title above. Empty: the chat is called "${PUBLIC_CHAT_TITLE}" and the start page shows the title above.`}
          placeholder={PUBLIC_CHAT_TITLE}
          {...field('publicTitle')}
        />
        {PROMPT_FIELDS.map(({ key, rows, ...text }) => (
          <Textarea key={key} {...text} autosize minRows={rows[0]} maxRows={rows[1]} {...field(key)} />
        ))}
        <Select
          label="Messaging account"
          description="The account used for outbound calls and messages of this type (optional)."
          placeholder={accounts.isPending ? 'Loading accounts…' : 'No account'}
          data={[...accountOptions, ...selectedMissing]}
          value={values.messagingAccountId}
          onChange={(value) => setValues((v) => ({ ...v, messagingAccountId: value }))}
          clearable
          searchable
        />
        <KnowledgeCollectionsSelect
          value={values.knowledgeCollectionIds}
          onChange={(ids) => setValues((v) => ({ ...v, knowledgeCollectionIds: ids }))}
        />
        <Switch
          label="Public"
          description="Listed on the start page, so visitors and users can start a web chat of this type. Duplicates start private."
          checked={values.isPublic}
          onChange={(e) => {
            const checked = e.currentTarget.checked;
            setValues((v) => ({ ...v, isPublic: checked }));
          }}
        />
        {accounts.isError && (
          <Alert color="yellow" variant="light">
            The messaging accounts could not be loaded ({errorMessage(accounts.error)}). You can save the type without one.
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={props.saving}>
            Save
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
