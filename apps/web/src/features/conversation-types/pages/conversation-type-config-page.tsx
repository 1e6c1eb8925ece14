import { Alert, Anchor, Card, Code, List, Loader, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { JsonConfigEditor } from '../../../components/json-config-editor.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { CustomToolForm } from '../components/custom-tool-form.tsx';
import { CustomToolsPanel } from '../components/custom-tools-panel.tsx';
import { conversationTypeQuery, saveConversationTypeConfig, conversationTypeKeys } from '../api/conversation-types.ts';

/** Spec §2.6 config: a JSON editor with Save; the text must parse as JSON before it is sent (spec §5). */
export default function ConversationTypeConfigPage() {
  const { id = '' } = useParams();
  const query = useQuery(conversationTypeQuery(id));
  const client = useQueryClient();
  // The editor's text, shared with the custom tool form (it writes its tool into this text and saves it).
  const [text, setText] = useState<{ id: string; value: string } | null>(null);

  if (query.isPending) return <Loader aria-label="Loading configuration" />;
  if (query.isError) {
    return (
      <Alert color="red" title="Could not load this conversation type">
        {errorMessage(query.error)}
      </Alert>
    );
  }
  const save = async (text: string) => {
    const message = await saveConversationTypeConfig(id, text);
    await client.invalidateQueries({ queryKey: conversationTypeKeys.all() });
    return message;
  };
  const current = text?.id === id ? text.value : query.data.config;
  const saveFromForm = async (next: string) => {
    setText({ id, value: next });
    try {
      toastSuccess(await save(next));
      // The editor shows the stored config again: typed secret values give way to their masked form.
      setText(null);
      return true;
    } catch (err) {
      toastError(err);
      return false;
    }
  };
  return (
    <JsonConfigEditor
      key={id}
      heading={`Config: ${query.data.label}`}
      initialText={query.data.config}
      text={current}
      onTextChange={(value) => setText({ id, value })}
      onSave={save}
      aside={
        <Anchor component={Link} to={paths.admin.conversationTypeEdit(id)}>
          Back to the conversation type
        </Anchor>
      }
    >
      <CustomToolForm configText={current} onSaveText={saveFromForm} />
      <CustomToolsPanel typeId={id} configText={query.data.config} />
      <ConfigHelp />
    </JsonConfigEditor>
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
        <List.Item>
          <Code>locationId</Code>, <Code>apiKey</Code> — the type's own GoHighLevel location and Private Integration token (else
          GHL_LOCATION_ID and GHL_API_KEY of the server). The token is stored encrypted and shown masked; saving the masked
          value keeps it.
        </List.Item>
        <List.Item>
          <Code>stageOnOutcome</Code> — the GoHighLevel stage id a contact's opportunity moves to when its call ends:{' '}
          <Code>ended</Code>, <Code>needsHuman</Code>, <Code>errored</Code>, <Code>unfinished</Code>, <Code>notReached</Code>, and <Code>booked</Code> (as soon as the agent books a meeting).
        </List.Item>
        <List.Item>
          <Code>booking</Code> — the calendar the agent books into: <Code>{'{"provider": "calcom", "apiKey": "…", "eventTypeId": 123}'}</Code>{' '}
          (the key stored encrypted and shown masked) or <Code>{'{"provider": "ghl", "calendarId": "…"}'}</Code>.
        </List.Item>
        <List.Item>
          <Code>leadFields</Code> — what the agent learns about the prospect:{' '}
          <Code>{'[{"key": "budget", "label": "Budget", "type": "number", "required": true}]'}</Code>; types text, number, email, phone,
          enum (with <Code>options</Code>), date, boolean.
        </List.Item>
        <List.Item>
          <Code>tools</Code> — the team's own HTTP tools:{' '}
          <Code>{'[{"name", "description", "parameters": <JSON Schema>, "method", "url", "headers"?, "secret"?, "timeoutMs"?}]'}</Code>;{' '}
          <Code>{'{param}'}</Code> in the URL is filled from the arguments; header values and the secret are stored encrypted and shown
          masked; with a secret each request carries <Code>X-Signature: t=…,v1=…</Code> (HMAC-SHA256 of <Code>t.body</Code>);{' '}
          <Code>{'"confirm": true'}</Code> (on a tool, or in <Code>booking</Code> for book_meeting) runs the call only after the
          prospect's yes. The Custom tools form above edits the same list.
        </List.Item>
      </List>
    </Card>
  );
}
