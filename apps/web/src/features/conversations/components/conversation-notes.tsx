import { Button, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { useState } from 'react';
import { useAddNote } from '../api/workspace.ts';
import { fullDate, relativeTime } from '../lib/relative-time.ts';

/**
 * Private notes of the team (issue 24): never sent to the prospect or shown to a visitor. Writing @ and a
 * teammate's email (or the part before @) notifies them.
 */
export function ConversationNotes({ conversation: c }: { conversation: ConversationDetail }) {
  const [text, setText] = useState('');
  const add = useAddNote();
  const submit = () => {
    const trimmed = text.trim();
    if (!trimmed) return;
    add.mutate({ conversation: c, text: trimmed }, { onSuccess: () => setText('') });
  };
  return (
    <Stack gap={6} mt="md" data-testid="notes" aria-labelledby={`notes-${c.id}`}>
      <Title order={3} fz="sm" id={`notes-${c.id}`}>
        Team notes
      </Title>
      {c.notes.length === 0 ? (
        <Text size="xs" c="dimmed">
          No notes yet. Notes are private to the team: the prospect never sees them.
        </Text>
      ) : (
        c.notes.map((n) => (
          <Paper key={n.id} p="xs" radius="sm" data-testid="note" style={{ background: 'light-dark(var(--mantine-color-yellow-0), var(--mantine-color-dark-5))', border: '1px solid var(--mantine-color-yellow-4)' }}>
            <Text size="xs" fw={600}>
              {n.authorEmail ?? 'A former teammate'} ·{' '}
              <Text span size="xs" title={fullDate(n.createdAt)}>
                {relativeTime(n.createdAt)}
              </Text>
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {n.text}
            </Text>
          </Paper>
        ))
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack gap={4}>
          <Textarea
            label="Private note"
            description="Only your team sees it. Mention a teammate with @ and their email to notify them."
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            autosize
            minRows={1}
            maxRows={5}
            size="xs"
          />
          <Button type="submit" size="xs" variant="light" color="yellow" loading={add.isPending} disabled={!text.trim()} style={{ alignSelf: 'flex-start' }}>
            Add note
          </Button>
        </Stack>
      </form>
    </Stack>
  );
}
