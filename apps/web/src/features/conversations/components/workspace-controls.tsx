import { Badge, Button, Group, Menu, Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import { IconCheck, IconClock, IconRefresh } from '@tabler/icons-react';
import { assigneesQuery, useWorkspaceChange } from '../api/workspace.ts';
import { fullDate } from '../lib/relative-time.ts';

const UNASSIGNED = '__none__';

/** Snooze choices: in an hour, tomorrow at 9:00, next Monday at 9:00 (local time). */
export function snoozeChoices(now = new Date()): { label: string; until: Date }[] {
  const tomorrow = new Date(now);
  tomorrow.setDate(now.getDate() + 1);
  tomorrow.setHours(9, 0, 0, 0);
  const monday = new Date(now);
  monday.setDate(now.getDate() + (((8 - now.getDay()) % 7) || 7));
  monday.setHours(9, 0, 0, 0);
  return [
    { label: 'For an hour', until: new Date(now.getTime() + 3_600_000) },
    { label: 'Until tomorrow 9:00', until: tomorrow },
    { label: 'Until next Monday 9:00', until: monday },
  ];
}

/**
 * Who owns the conversation and where it stands for the team (issue 24): assign a teammate, resolve or reopen,
 * snooze until a time. Only for teammates who may change it.
 */
export function WorkspaceControls({ conversation: c }: { conversation: ConversationDetail }) {
  const assignees = useQuery(assigneesQuery(c.id));
  const change = useWorkspaceChange();
  const emails = assignees.data?.map((a) => a.email) ?? [];
  if (c.assignee && !emails.includes(c.assignee)) emails.push(c.assignee);
  const snoozed = c.snoozedUntil !== null && Date.parse(c.snoozedUntil) > Date.now();
  const run = (changeBody: Parameters<typeof change.mutate>[0]['change']) => change.mutate({ conversation: c, change: changeBody });
  return (
    <Group gap="xs" align="flex-end" data-testid="workspace-controls" wrap="wrap">
      <Select
        size="xs"
        label="Assignee"
        data={[{ value: UNASSIGNED, label: 'Unassigned' }, ...emails.map((e) => ({ value: e, label: e }))]}
        value={c.assignee ?? UNASSIGNED}
        onChange={(v) => v !== null && run({ assigneeEmail: v === UNASSIGNED ? null : v })}
        allowDeselect={false}
        searchable
        w={230}
        disabled={change.isPending}
      />
      {c.state === 'open' ? (
        <Button size="xs" variant="light" color="green" leftSection={<IconCheck size={16} aria-hidden />} loading={change.isPending} onClick={() => run({ state: 'resolved' })}>
          Resolve
        </Button>
      ) : (
        <Button size="xs" variant="light" leftSection={<IconRefresh size={16} aria-hidden />} loading={change.isPending} onClick={() => run({ state: 'open' })}>
          Reopen
        </Button>
      )}
      <Menu position="bottom-start" withinPortal>
        <Menu.Target>
          <Button size="xs" variant="default" leftSection={<IconClock size={16} aria-hidden />}>
            Snooze
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {snoozeChoices().map((choice) => (
            <Menu.Item key={choice.label} onClick={() => run({ snoozedUntil: choice.until.toISOString() })}>
              {choice.label}
            </Menu.Item>
          ))}
          {snoozed && <Menu.Item onClick={() => run({ snoozedUntil: null })}>Stop snoozing</Menu.Item>}
        </Menu.Dropdown>
      </Menu>
      {c.state === 'resolved' && (
        <Badge color="green" variant="light" data-testid="state-badge">
          Resolved
        </Badge>
      )}
      {snoozed && (
        <Badge color="gray" variant="light" data-testid="snoozed-badge">
          Snoozed until {fullDate(c.snoozedUntil!)}
        </Badge>
      )}
    </Group>
  );
}
