import { ActionIcon, Alert, Button, Card, Checkbox, Code, Group, NumberInput, PasswordInput, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { configWithTool, EMPTY_TOOL_FORM, formToTool, type ToolFormValues, toolToForm, toolsOfText } from './custom-tool-model.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A form beside the JSON editor for the config's custom HTTP tools (issue 22): add or edit one tool; "Save
 * tool" writes it into the editor's text and saves that text like the Save button. Secret values come back
 * masked and are never shown; a blank secret field keeps what is stored.
 */
export function CustomToolForm({ configText, onSaveText }: { configText: string; onSaveText: (text: string) => Promise<boolean> }) {
  const tools = toolsOfText(configText);
  const [editing, setEditing] = useState<{ index: number | null; values: ToolFormValues } | null>(null);
  return (
    <Card withBorder data-testid="custom-tool-form">
      <Group justify="space-between" mb="xs">
        <Text fw={600}>Custom tools</Text>
        {!editing && (
          <Button size="xs" variant="light" onClick={() => setEditing({ index: null, values: EMPTY_TOOL_FORM })}>
            Add tool
          </Button>
        )}
      </Group>
      {!editing && tools.length === 0 && (
        <Text size="sm" c="dimmed">
          No custom tools yet: add one the agent may call (your own HTTP endpoint).
        </Text>
      )}
      {!editing &&
        tools.map((tool, index) => (
          <Group key={`${tool.name}-${index}`} justify="space-between" py={4}>
            <Group gap="xs">
              <Code>{tool.name}</Code>
              <Text size="sm" c="dimmed">
                {tool.method} {tool.url}
              </Text>
            </Group>
            <Button size="xs" variant="subtle" onClick={() => setEditing({ index, values: toolToForm(tool) })} aria-label={`Edit tool ${tool.name}`}>
              Edit
            </Button>
          </Group>
        ))}
      {editing && (
        <ToolEditor
          initial={editing.values}
          isNew={editing.index === null}
          onCancel={() => setEditing(null)}
          onSubmit={async (values) => {
            const previous = editing.index === null ? undefined : tools[editing.index];
            const built = formToTool(values, previous);
            if ('problem' in built) return built.problem;
            const next = configWithTool(configText, editing.index, built.tool);
            if ('problem' in next) return next.problem;
            if (await onSaveText(next.text)) setEditing(null);
            return null;
          }}
        />
      )}
    </Card>
  );
}

function ToolEditor({ initial, isNew, onCancel, onSubmit }: { initial: ToolFormValues; isNew: boolean; onCancel: () => void; onSubmit: (values: ToolFormValues) => Promise<string | null> }) {
  const [values, setValues] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof ToolFormValues>(key: K, value: ToolFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const setHeader = (i: number, patch: Partial<ToolFormValues['headers'][number]>) => set('headers', values.headers.map((h, j) => (j === i ? { ...h, ...patch } : h)));
  const submit = async () => {
    setSaving(true);
    try {
      setProblem(await onSubmit(values));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap="xs">
      <TextInput label="Tool name" description="Letters, digits, _ or -; what the model calls." value={values.name} onChange={(e) => set('name', e.currentTarget.value)} required />
      <Textarea label="Description for the model" value={values.description} onChange={(e) => set('description', e.currentTarget.value)} autosize minRows={2} required />
      <Textarea label="Parameters (JSON Schema)" value={values.parameters} onChange={(e) => set('parameters', e.currentTarget.value)} autosize minRows={4} ff="monospace" />
      <Group grow align="flex-start">
        <Select label="Method" data={[...METHODS]} value={values.method} onChange={(m) => m && set('method', m as ToolFormValues['method'])} allowDeselect={false} />
        <NumberInput label="Timeout (ms)" placeholder="10000" min={500} max={30000} value={values.timeoutMs} onChange={(n) => set('timeoutMs', typeof n === 'number' ? n : '')} />
      </Group>
      <TextInput label="URL" description="{param} is filled from the arguments." value={values.url} onChange={(e) => set('url', e.currentTarget.value)} required />
      <Text size="sm" fw={500}>
        Headers (values are stored encrypted and never shown again)
      </Text>
      {values.headers.map((h, i) => (
        <Group key={i} align="flex-end" wrap="nowrap">
          <TextInput label={`Header ${i + 1} name`} value={h.name} onChange={(e) => setHeader(i, { name: e.currentTarget.value })} style={{ flex: 1 }} />
          <PasswordInput
            label={`Header ${i + 1} value`}
            placeholder={h.stored ? `unchanged (${h.stored})` : ''}
            value={h.value}
            onChange={(e) => setHeader(i, { value: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <ActionIcon variant="subtle" color="red" aria-label={`Remove header ${i + 1}`} onClick={() => set('headers', values.headers.filter((_, j) => j !== i))} mb={4}>
            ×
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button size="xs" variant="subtle" onClick={() => set('headers', [...values.headers, { name: '', value: '', stored: null }])}>
          Add header
        </Button>
      </Group>
      <PasswordInput
        label="Signing secret"
        description="With a secret, each request carries X-Signature: t=…,v1=… (HMAC-SHA256)."
        placeholder={values.storedSecret ? `unchanged (${values.storedSecret})` : 'none'}
        value={values.secret}
        onChange={(e) => set('secret', e.currentTarget.value)}
      />
      <Checkbox label="Needs the prospect's confirmation first" checked={values.confirm} onChange={(e) => set('confirm', e.currentTarget.checked)} />
      <Checkbox label="Send the prospect's lead fields" checked={values.includeLeadFields} onChange={(e) => set('includeLeadFields', e.currentTarget.checked)} />
      <Checkbox label="Send the recent transcript" checked={values.includeTranscript} onChange={(e) => set('includeTranscript', e.currentTarget.checked)} />
      {problem && (
        <Alert color="red" role="alert" title="The tool was not saved">
          {problem}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button onClick={submit} loading={saving}>
          {isNew ? 'Add and save tool' : 'Save tool'}
        </Button>
      </Group>
    </Stack>
  );
}
