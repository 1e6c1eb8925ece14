import { Button, Card, Group, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { CannedReply } from '@sales-agent/shared/schemas/canned-reply';
import { useState } from 'react';
import { QueryState } from '../../../components/query-state.tsx';
import { SimpleTable } from '../../../components/simple-table.tsx';
import { confirmAction } from '../../../lib/confirm.tsx';
import { cannedRepliesQuery, useAddCannedReply, useChangeCannedReply, useDeleteCannedReply } from '../../conversations/api/canned-replies.ts';

/**
 * The team's canned replies on /admin/users (issue 24): an ADMIN adds, edits and deletes them; every teammate
 * inserts one in a reply by typing "/" and its shortcut.
 */
export function CannedRepliesCard() {
  const replies = useQuery(cannedRepliesQuery());
  const [editing, setEditing] = useState<CannedReply | null>(null);
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={2} fz="h4">
          Canned replies
        </Title>
        <Text size="sm" c="dimmed">
          Saved answers the whole team can use: in a reply box, type / and the shortcut, then press Enter.
        </Text>
        <CannedReplyForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
        <QueryState query={replies} title="Canned replies">
          {(list) =>
            list.length === 0 ? (
              <Text size="sm">No canned replies yet.</Text>
            ) : (
              <CannedRepliesTable replies={list} onEdit={setEditing} />
            )
          }
        </QueryState>
      </Stack>
    </Card>
  );
}

function CannedReplyForm(props: { editing: CannedReply | null; onDone(): void }) {
  const [shortcut, setShortcut] = useState(props.editing?.shortcut ?? '');
  const [text, setText] = useState(props.editing?.text ?? '');
  const add = useAddCannedReply();
  const change = useChangeCannedReply();
  const saving = add.isPending || change.isPending;
  const done = () => {
    setShortcut('');
    setText('');
    props.onDone();
  };
  return (
    <form
      aria-label={props.editing ? `Edit /${props.editing.shortcut}` : 'New canned reply'}
      onSubmit={(e) => {
        e.preventDefault();
        const body = { shortcut: shortcut.trim().replace(/^\//, ''), text: text.trim() };
        if (props.editing) change.mutate({ id: props.editing.id, change: body }, { onSuccess: done });
        else add.mutate(body, { onSuccess: done });
      }}
    >
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Shortcut"
          description="Letters, digits and dashes"
          leftSection="/"
          required
          value={shortcut}
          onChange={(e) => setShortcut(e.currentTarget.value)}
          w={200}
        />
        <Textarea label="Reply text" required autosize minRows={1} maxRows={6} value={text} onChange={(e) => setText(e.currentTarget.value)} style={{ flex: 1, minWidth: 240 }} />
        <Group gap="xs">
          <Button type="submit" loading={saving}>
            {props.editing ? 'Save' : 'Add reply'}
          </Button>
          {props.editing && (
            <Button variant="default" onClick={done}>
              Cancel
            </Button>
          )}
        </Group>
      </Group>
    </form>
  );
}

function CannedRepliesTable(props: { replies: CannedReply[]; onEdit(reply: CannedReply): void }) {
  const remove = useDeleteCannedReply();
  return (
    <SimpleTable minWidth={480} aria-label="Canned replies" striped columns={['Shortcut', 'Text', 'Actions']}>
      {props.replies.map((reply) => (
        <Table.Tr key={reply.id} data-testid="canned-reply">
          <Table.Td>/{reply.shortcut}</Table.Td>
          <Table.Td style={{ whiteSpace: 'pre-wrap' }}>{reply.text}</Table.Td>
          <Table.Td>
            <Group gap="xs" wrap="nowrap">
              <Button size="xs" variant="light" onClick={() => props.onEdit(reply)} aria-label={`Edit /${reply.shortcut}`}>
                Edit
              </Button>
              <Button size="xs" variant="light" color="red" loading={remove.isPending && remove.variables === reply.id} onClick={async () => {
                  if (await confirmAction(`Delete the canned reply /${reply.shortcut}?`, { confirmLabel: 'Delete', danger: true })) remove.mutate(reply.id);
                }} aria-label={`Delete /${reply.shortcut}`}>
                Delete
              </Button>
            </Group>
          </Table.Td>
        </Table.Tr>
      ))}
    </SimpleTable>
  );
}
