import { json } from '@codemirror/lang-json';
import { Alert, Anchor, Button, Card, Code, Group, List, Loader, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import CodeMirror from '@uiw/react-codemirror';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { conversationTypeQuery, saveConversationTypeConfig } from '../api/conversation-types.ts';

const extensions = [json()];

/** Spec §2.6 config: a JSON editor with Save; the text must parse as JSON before it is sent (spec §5). */
export default function ConversationTypeConfigPage() {
  const { id = '' } = useParams();
  const query = useQuery(conversationTypeQuery(id));
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (query.data) setText(query.data.config);
  }, [query.data]);

  const save = async () => {
    try {
      JSON.parse(text);
    } catch (err) {
      const message = `Invalid JSON: ${(err as Error).message}`;
      setParseError(message);
      toastError(message);
      return;
    }
    setParseError(null);
    setSaving(true);
    try {
      toastSuccess(await saveConversationTypeConfig(id, text));
      await client.invalidateQueries({ queryKey: ['conversation-types'] });
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };

  const heading = query.data ? truncate(`Config: ${query.data.label}`, TRUNCATE.configHeading) : `Config: conversation type #${id}`;

  return (
    <>
      <Group justify="space-between" align="flex-start">
        <PageTitle>{heading}</PageTitle>
        <Anchor component={Link} to={paths.admin.conversationTypeEdit(id)}>
          Back to the conversation type
        </Anchor>
      </Group>
      {query.isPending && <Loader aria-label="Loading configuration" />}
      {query.isError && (
        <Alert color="red" title="Could not load this conversation type">
          {errorMessage(query.error)}
        </Alert>
      )}
      {query.data && (
        <Stack>
          <Card withBorder p={0} aria-label="Configuration JSON">
            <CodeMirror
              value={text}
              onChange={(value) => {
                setText(value);
                if (parseError) setParseError(null);
              }}
              extensions={extensions}
              height="360px"
              basicSetup={{ foldGutter: true, highlightActiveLine: true }}
            />
          </Card>
          {parseError && (
            <Alert color="red" title="The configuration was not saved" role="alert">
              {parseError}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button onClick={save} loading={saving}>
              Save
            </Button>
          </Group>
          <ConfigHelp />
        </Stack>
      )}
    </>
  );
}

/** What the known config fields do (DESIGN.md §6); unknown fields are kept as they are. */
function ConfigHelp() {
  return (
    <Card withBorder>
      <Text fw={600} mb="xs">
        Known fields (all optional)
      </Text>
      <List size="sm" spacing={4}>
        <List.Item>
          <Code>replyDebounceSeconds</Code> — seconds to wait for more prospect messages before answering (0–600, default 2).
        </List.Item>
        <List.Item>
          <Code>followUp.delaysMinutes</Code> — minutes of silence before each follow-up, the last value repeats (default [60, 1440]);{' '}
          <Code>followUp.max</Code> — follow-ups per silence (0–20, default 2).
        </List.Item>
        <List.Item>
          <Code>model</Code> — the LLM model for this type; <Code>temperature</Code> — 0 to 2 (default 0.7).
        </List.Item>
        <List.Item>
          <Code>voice.name</Code>, <Code>voice.language</Code> — the voice of phone calls.
        </List.Item>
        <List.Item>
          <Code>{'"crm": "GHL"'}</Code> (or the whole config <Code>"GHL"</Code>) — links the type to GoHighLevel and shows its Contacts.
        </List.Item>
      </List>
    </Card>
  );
}
