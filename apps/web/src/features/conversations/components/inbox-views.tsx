import { Button, Group, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useEffect, useState } from 'react';

/** The inbox's views (issue 24), each a set of list parameters in the query string. */
export const INBOX_VIEWS = [
  { value: 'all', label: 'All', params: {} },
  { value: 'mine', label: 'Mine', params: { assignee: 'me' } },
  { value: 'unassigned', label: 'Unassigned', params: { assignee: 'none' } },
  { value: 'needs-person', label: 'Needs a person', params: { needsPerson: 'true' } },
] as const;

export function currentView(params: URLSearchParams): (typeof INBOX_VIEWS)[number]['value'] {
  if (params.get('needsPerson') === 'true') return 'needs-person';
  if (params.get('assignee') === 'me') return 'mine';
  if (params.get('assignee') === 'none') return 'unassigned';
  return 'all';
}

/** Mine / Unassigned / All / Needs a person, and the search box (q), all in the query string. */
export function InboxViews(props: { params: URLSearchParams; onChange(changes: Record<string, string | null>): void }) {
  const view = currentView(props.params);
  const q = props.params.get('q') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  // Searching as one types, once the typing pauses.
  useEffect(() => {
    if (text.trim() === q) return;
    const timer = setTimeout(() => props.onChange({ q: text.trim() || null }), 400);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  return (
    <Group gap="xs" wrap="wrap" data-testid="inbox-views">
      <Button.Group aria-label="Inbox views">
        {INBOX_VIEWS.map((v) => (
          <Button
            key={v.value}
            size="xs"
            variant={view === v.value ? 'filled' : 'default'}
            aria-pressed={view === v.value}
            onClick={() => props.onChange({ assignee: null, needsPerson: null, ...v.params })}
          >
            {v.label}
          </Button>
        ))}
      </Button.Group>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          props.onChange({ q: text.trim() || null });
        }}
        style={{ flex: '1 1 220px', maxWidth: 420 }}
      >
        <TextInput
          size="xs"
          aria-label="Search conversations"
          placeholder="Search name, phone, email or message text"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          type="search"
        />
      </form>
    </Group>
  );
}
