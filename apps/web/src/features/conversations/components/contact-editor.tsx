import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ContactView } from '@sales-agent/shared/schemas/conversation';
import { useState } from 'react';
import { channelLabel } from '../../../components/channel-badge.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { contactSearchQuery, useChangeContact, useMergeContact } from '../api/contacts.ts';

/**
 * Editing and merging the contact in the prospect panel (issue 24): name, email and phone number (the server
 * checks the number with its country code), and merging another contact of the same person into this one.
 */
export function ContactActions({ contact }: { contact: ContactView }) {
  const [mode, setMode] = useState<'none' | 'edit' | 'merge'>('none');
  if (mode === 'edit') return <ContactForm contact={contact} onDone={() => setMode('none')} />;
  if (mode === 'merge') return <ContactMerge contact={contact} onDone={() => setMode('none')} />;
  return (
    <Group gap="xs">
      <Button size="compact-xs" variant="light" onClick={() => setMode('edit')}>
        Edit contact
      </Button>
      <Button size="compact-xs" variant="light" onClick={() => setMode('merge')}>
        Merge with…
      </Button>
    </Group>
  );
}

function ContactForm({ contact, onDone }: { contact: ContactView; onDone(): void }) {
  const [name, setName] = useState(contact.name ?? '');
  const [email, setEmail] = useState(contact.email ?? '');
  const [phone, setPhone] = useState(contact.phone ?? '');
  const change = useChangeContact();
  return (
    <form
      aria-label="Edit contact"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate({ id: contact.id, change: { name, email, phone } }, { onSuccess: onDone });
      }}
    >
      <Stack gap={6}>
        <TextInput size="xs" label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <TextInput size="xs" label="Email" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
        <TextInput
          size="xs"
          label="Phone"
          description="e.g. +1 213 373 4253; without a country code it is read as a number in the server's default country"
          type="tel"
          value={phone}
          onChange={(e) => setPhone(e.currentTarget.value)}
        />
        {/* The refusal stays on the form (a toast would vanish before it is read). */}
        {change.isError && (
          <Alert color="red" p="xs" role="alert">
            {errorMessage(change.error)}
          </Alert>
        )}
        <Group gap="xs">
          <Button size="xs" type="submit" loading={change.isPending}>
            Save contact
          </Button>
          <Button size="xs" variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ContactMerge({ contact, onDone }: { contact: ContactView; onDone(): void }) {
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q.trim(), 250);
  const found = useQuery(contactSearchQuery(debounced));
  const merge = useMergeContact();
  const others = (found.data ?? []).filter((c) => c.id !== contact.id);
  return (
    <Stack gap={6} aria-label="Merge contacts" role="group">
      <TextInput
        size="xs"
        label="Find the other contact"
        description="Name, phone number, handle or email"
        value={q}
        onChange={(e) => setQ(e.currentTarget.value)}
        data-autofocus
      />
      {debounced && found.isSuccess && others.length === 0 && (
        <Text size="xs" c="dimmed">
          No other contact matches.
        </Text>
      )}
      {others.map((other) => {
        const label = other.name ?? other.phone ?? other.email ?? other.handles[0]?.externalId ?? `Contact ${other.id}`;
        return (
          <Group key={other.id} gap="xs" justify="space-between" wrap="nowrap" data-testid="contact-candidate">
            <Text size="xs">
              {label}
              {other.handles.length > 0 && ` · ${other.handles.map((h) => channelLabel(h.channel)).join(', ')}`}
            </Text>
            <Button
              size="compact-xs"
              loading={merge.isPending && merge.variables?.otherContactId === other.id}
              aria-label={`Merge ${label} into this contact`}
              onClick={async () => {
                const ok = await confirmAction(`Merge ${label} into this contact? Their conversations and handles move here.`, {
                  confirmLabel: 'Merge',
                  danger: false,
                });
                if (ok) merge.mutate({ id: contact.id, otherContactId: other.id }, { onSuccess: onDone });
              }}
            >
              Merge
            </Button>
          </Group>
        );
      })}
      <Group>
        <Button size="xs" variant="default" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </Stack>
  );
}
