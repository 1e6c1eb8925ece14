import { List, ScrollArea, Text } from '@mantine/core';
import { unansweredError } from '@sales-agent/shared/schemas/unanswered';
import { z } from 'zod';

const FIELDS = ['message', 'type', 'code', 'status', 'method', 'url', 'response', 'details'] as const;
const errorArray = z.array(unansweredError);

/** Reads the stored JSON text of errors: the list, or null when it cannot be read. */
export function parseErrors(text: string) {
  try {
    const parsed = errorArray.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Spec §2.9 errors cell: a scrolling list (max height 9.375rem), 'No errors' or 'Invalid error format'. */
export function ErrorList({ text }: { text: string }) {
  const errors = parseErrors(text);
  if (errors === null) return <Text c="red" size="sm">Invalid error format</Text>;
  if (errors.length === 0) return <Text c="dimmed" size="sm">No errors</Text>;
  return (
    // The list scrolls when long: focusable, so a keyboard can scroll it too (axe scrollable-region-focusable).
    <ScrollArea.Autosize mah="9.375rem" type="auto" data-testid="error-list" viewportProps={{ tabIndex: 0, role: 'group', 'aria-label': 'Errors' }}>
      <List size="xs" spacing={4}>
        {errors.map((e, i) => (
          <List.Item key={i}>
            {FIELDS.filter((f) => e[f] !== undefined && e[f] !== null && e[f] !== '').map((f) => (
              <Text key={f} size="xs" style={{ wordBreak: 'break-all' }}>
                <b>{f}:</b> {show(e[f])}
              </Text>
            ))}
          </List.Item>
        ))}
      </List>
    </ScrollArea.Autosize>
  );
}
