import { Alert, Button, Card, Group, Stack, Text, useComputedColorScheme } from '@mantine/core';
import { json } from '@codemirror/lang-json';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { type ReactNode, useMemo, useState } from 'react';
import { toastError, toastSuccess } from '../lib/toast.ts';
import { PageTitle } from './page-title.tsx';

export interface JsonConfigEditorProps {
  /** The page heading; cut to 50 characters (spec §2.6, §2.7, §9). */
  heading: string;
  /** The stored config text the editor starts with. */
  initialText: string;
  /**
   * Sends the text (already known to be valid JSON) and resolves to the success notice to show,
   * e.g. 'Configuration saved successfully.'. A rejection is shown as an error toast (spec §8.1).
   */
  onSave: (text: string) => Promise<string>;
  /** Extra check on the parsed value; return a sentence to refuse it, or null to accept. */
  validate?: (value: unknown) => string | null;
  /** Shown under the heading, e.g. what the config controls. */
  description?: string;
  /** Shown beside the heading, e.g. a back link. */
  aside?: ReactNode;
  /** Shown below the Save button, e.g. help on the known fields. */
  children?: ReactNode;
  /** Controlled text (with `onTextChange`), for a page whose forms write into the same config. */
  text?: string;
  onTextChange?: (text: string) => void;
}

/** Parses `text` as JSON; returns the error sentence to show, or null when it parses (and passes `validate`). */
export function jsonProblem(text: string, validate?: (value: unknown) => string | null): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `Invalid JSON: ${(err as Error).message}`;
  }
  return validate ? validate(value) : null;
}

/** Accepts only a JSON object (not an array, string or null). Pass as `validate` where the server needs one. */
export const requireJsonObject = (value: unknown): string | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'The configuration must be a JSON object, e.g. {}';

/**
 * The JSON config editor of spec §2.6/§2.7 (conversation types and messaging accounts): a CodeMirror JSON
 * editor with Save. Text that does not parse is refused in the browser with a visible message (spec §5)
 * and never sent.
 */
export function JsonConfigEditor({ heading, initialText, onSave, validate, description, aside, children, ...controlled }: JsonConfigEditorProps) {
  const scheme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const [ownText, setOwnText] = useState(initialText);
  const text = controlled.text ?? ownText;
  const setText = controlled.onTextChange ?? setOwnText;
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const extensions = useMemo(
    () => [json(), EditorView.lineWrapping, EditorView.contentAttributes.of({ 'aria-label': 'JSON configuration' })],
    [],
  );

  const save = async () => {
    const found = jsonProblem(text, validate);
    setProblem(found);
    if (found) return;
    setSaving(true);
    try {
      toastSuccess(await onSave(text));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-start">
        <div>
          <PageTitle>{truncate(heading, TRUNCATE.configHeading)}</PageTitle>
          {description && (
            <Text size="sm" c="dimmed" mt={-8}>
              {description}
            </Text>
          )}
        </div>
        {aside}
      </Group>
      <Card withBorder p={0} data-testid="json-config-editor">
        <CodeMirror
          // Readable in dark mode (issue 24): the editor follows the app's colour scheme.
          theme={scheme}
          value={text}
          minHeight="320px"
          extensions={extensions}
          onChange={(value) => {
            setText(value);
            if (problem) setProblem(null);
          }}
          basicSetup={{ foldGutter: true, highlightActiveLine: true }}
        />
      </Card>
      {problem && (
        <Alert color="red" title="The configuration was not saved" role="alert">
          {problem}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={save} loading={saving}>
          Save
        </Button>
      </Group>
      {children}
    </Stack>
  );
}
