import { Badge, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { IconBrandWhatsapp } from '@tabler/icons-react';
import { useState } from 'react';
import { useRecordConsent } from '../api/opt-out.ts';

/** Where a consent record came from, in words (the `source` of consent_records). */
const SOURCE_WORDS: Record<string, string> = {
  'prospect wrote first': 'the prospect wrote first',
  'keyword START': 'the prospect wrote START',
  api: 'through the API',
  import: 'imported from a list',
  person: 'by a person',
  'opt-out': 'the prospect opted out',
};

/**
 * The prospect's WhatsApp opt-in (issue 23): WhatsApp lets a business start a conversation (a template outside
 * the 24-hour window) only with someone who opted in. A person who may change the conversation records an
 * opt-in given elsewhere (on a call, on a form) or withdraws it — always with a note, which the audit keeps.
 */
export function WhatsAppOptIn({ conversation: c }: { conversation: ConversationDetail }) {
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const record = useRecordConsent();
  if (c.whatsappOptIn === undefined) return null;
  const state = c.whatsappOptIn;
  const granted = state?.granted === true;
  const submit = () =>
    record.mutate(
      { conversation: c, granted: !granted, note: note.trim() },
      {
        onSuccess: () => {
          setOpen(false);
          setNote('');
        },
      },
    );
  return (
    <Stack gap={4} data-testid="whatsapp-opt-in">
      <Group gap="xs">
        <IconBrandWhatsapp size={16} aria-hidden />
        <Text size="sm">WhatsApp opt-in:</Text>
        <Badge variant="light" color={granted ? 'green' : 'gray'} data-testid="whatsapp-opt-in-state">
          {granted ? 'Opted in' : state ? 'Withdrawn' : 'None recorded'}
        </Badge>
        {state && (
          <Text size="xs" c="dimmed">
            {SOURCE_WORDS[state.source] ?? state.source}, {new Date(state.at).toLocaleString()}
          </Text>
        )}
        {!open && (
          <Button size="compact-xs" variant="subtle" onClick={() => setOpen(true)}>
            {granted ? 'Withdraw opt-in…' : 'Record opt-in…'}
          </Button>
        )}
      </Group>
      {open && (
        <Group align="flex-end">
          <Textarea
            label={granted ? 'Why is the opt-in withdrawn?' : 'Where and how did they opt in?'}
            placeholder={granted ? 'e.g. Asked on the phone not to get WhatsApp offers.' : 'e.g. Agreed on the phone call of 3 May.'}
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
            autosize
            minRows={1}
            w={360}
          />
          <Button size="xs" disabled={note.trim().length < 3} loading={record.isPending} onClick={submit}>
            {granted ? 'Withdraw with this note' : 'Record with this note'}
          </Button>
          <Button size="xs" variant="default" onClick={() => setOpen(false)}>
            Cancel
          </Button>
        </Group>
      )}
    </Stack>
  );
}
