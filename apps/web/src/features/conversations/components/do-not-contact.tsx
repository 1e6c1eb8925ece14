import { Alert, Button, Group, Textarea } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { IconBan } from '@tabler/icons-react';
import { useState } from 'react';
import { useClearOptOut } from '../api/opt-out.ts';

/** Where an opt-out holds, in words: `all` covers every channel of the person, `web` this web chat only. */
function optedOutWhere(channel: string): string {
  if (channel === 'all') return 'Opted out on every channel';
  if (channel === 'web') return 'Opted out in this web chat';
  return `Opted out on ${channel}`;
}

/**
 * The prospect opted out (issue 23): when and how, and for someone who may change the conversation a way to
 * clear it — only with a note saying why, which the audit keeps.
 */
export function DoNotContact({ conversation: c, canClear }: { conversation: ConversationDetail; canClear: boolean }) {
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const clear = useClearOptOut();
  if (!c.doNotContact) return null;
  const entries = Object.entries(c.doNotContact);
  return (
    <Alert color="red" variant="light" icon={<IconBan size={18} aria-hidden />} title="Do not contact" data-testid="do-not-contact">
      {entries.map(([channel, { since, how }]) => (
        <div key={channel}>
          {optedOutWhere(channel)} ({how}), {new Date(since).toLocaleString()}. No agent reply, follow-up, call or campaign message goes
          out until they write START or a person clears this.
        </div>
      ))}
      {canClear && !open && (
        <Button mt="xs" size="xs" variant="light" color="red" onClick={() => setOpen(true)}>
          Clear opt-out…
        </Button>
      )}
      {canClear && open && (
        <Group mt="xs" align="flex-end">
          <Textarea
            label="Why may they be contacted again?"
            placeholder="e.g. They asked by phone on 3 May to hear from us again."
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
            autosize
            minRows={1}
            w={360}
          />
          <Button
            size="xs"
            color="red"
            disabled={note.trim().length < 3}
            loading={clear.isPending}
            onClick={() => clear.mutate({ conversation: c, note: note.trim() }, { onSuccess: () => setOpen(false) })}
          >
            Clear with this note
          </Button>
        </Group>
      )}
    </Alert>
  );
}
