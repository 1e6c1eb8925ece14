import { Box, Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import type { LeadFieldDefinition, LeadFieldValue } from '@sales-agent/shared/schemas/lead-fields';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { conversationQuery } from '../api/conversations.ts';
import { useSaveLeadFields } from '../api/lead-fields.ts';

const shown = (value: LeadFieldValue | undefined) => (value === undefined ? '—' : value === true ? 'Yes' : value === false ? 'No' : String(value));
const asText = (value: LeadFieldValue | undefined) => (value === undefined ? '' : typeof value === 'boolean' ? String(value) : String(value));

/**
 * The lead fields of the conversation's type (issue 22): what the agent learnt, and for someone who may change
 * the conversation an editor to correct it (a person's value is kept; the agent does not overwrite it).
 */
export function LeadFields({ uuid }: { uuid: string }) {
  const detail = useQuery(conversationQuery(uuid));
  const c = detail.data;
  if (!c || c.leadFieldDefinitions.length === 0) return null;
  return <LeadFieldsOf conversation={c} />;
}

function LeadFieldsOf({ conversation: c }: { conversation: ConversationDetail }) {
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  const save = useSaveLeadFields();
  const definitions = c.leadFieldDefinitions;
  const start = () => setDraft(Object.fromEntries(definitions.map((f) => [f.key, asText(c.leadFields[f.key])])));
  const submit = () => {
    if (!draft) return;
    const fields = Object.fromEntries(
      definitions
        .filter((f) => draft[f.key] !== asText(c.leadFields[f.key]))
        .map((f) => [f.key, draft[f.key]!.trim() === '' ? null : draft[f.key]!.trim()]),
    );
    save.mutate({ conversation: c, fields }, { onSuccess: () => setDraft(null) });
  };
  return (
    <Stack gap={4} data-testid="lead-fields" aria-label="Lead fields">
      <Group justify="space-between">
        <Title order={3} fz="sm">
          Lead fields
        </Title>
        {c.canAdminister && !draft && (
          <Button size="compact-xs" variant="subtle" onClick={start}>
            Edit
          </Button>
        )}
      </Group>
      {!draft && (
        <Box component="dl" m={0} style={{ display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '4px 10px' }}>
          {definitions.map((f) => (
            <Box key={f.key} style={{ display: 'contents' }}>
              <Text component="dt" size="xs" fw={600}>
                {f.label}
                {f.required ? ' *' : ''}
              </Text>
              <Text component="dd" size="sm" m={0} data-testid={`lead-field-${f.key}`}>
                {shown(c.leadFields[f.key])}
              </Text>
            </Box>
          ))}
        </Box>
      )}
      {draft && (
        <Stack gap={6}>
          {definitions.map((f) => (
            <FieldInput key={f.key} field={f} value={draft[f.key] ?? ''} onChange={(v) => setDraft({ ...draft, [f.key]: v })} />
          ))}
          <Group gap="xs">
            <Button size="xs" onClick={submit} loading={save.isPending}>
              Save lead fields
            </Button>
            <Button size="xs" variant="default" onClick={() => setDraft(null)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}

function FieldInput({ field: f, value, onChange }: { field: LeadFieldDefinition; value: string; onChange: (value: string) => void }) {
  const label = `${f.label}${f.required ? ' (required)' : ''}`;
  if (f.type === 'enum' || f.type === 'boolean') {
    const data = f.type === 'boolean' ? [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }] : (f.options ?? []);
    return <Select size="xs" label={label} data={data} value={value || null} onChange={(v) => onChange(v ?? '')} clearable />;
  }
  const type = f.type === 'email' ? 'email' : f.type === 'date' ? 'date' : f.type === 'phone' ? 'tel' : 'text';
  return <TextInput size="xs" label={label} type={type} inputMode={f.type === 'number' ? 'decimal' : undefined} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
}
