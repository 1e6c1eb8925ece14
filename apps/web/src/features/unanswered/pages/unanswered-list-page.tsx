import { Alert, Anchor, Badge, Button, Loader, Stack, Text, Title } from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { UnansweredStatus } from '@sales-agent/shared/enums';
import type { UnansweredItem } from '@sales-agent/shared/schemas/unanswered';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { actionsColumn, DeleteAction, RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { unansweredQuery, useDeleteUnanswered, useSetUnansweredStatus } from '../api/unanswered.ts';
import { ErrorList } from '../components/error-list.tsx';

/** Spec §2.9: Active and Inactive tables, refreshed every 3 s. */
export default function UnansweredListPage() {
  const query = useQuery(unansweredQuery());
  const setStatus = useSetUnansweredStatus();
  const remove = useDeleteUnanswered();

  const onStatus = async (row: UnansweredItem, status: UnansweredStatus) => {
    const verb = status === 'ACTIVE' ? 'Activate' : 'Deactivate';
    if (!(await confirmAction(`${verb} unanswered conversation ${row.id}?`, { confirmLabel: 'Confirm', danger: false }))) return;
    setStatus.mutate({ id: row.id, status });
  };
  const onDelete = async (row: UnansweredItem) => {
    if (!(await confirmAction(`Delete unanswered conversation ${row.id}?`, { confirmLabel: 'Confirm' }))) return;
    remove.mutate(row.id);
  };

  if (query.isPending) return <Loader aria-label="Loading unanswered conversations" />;
  if (query.isError) return <Alert color="red">{errorMessage(query.error)}</Alert>;
  const rows = query.data;
  return (
    <Stack>
      <PageTitle>Unanswered conversations</PageTitle>
      {(['ACTIVE', 'INACTIVE'] as const).map((status) => (
        <UnansweredTable
          key={status}
          title={status === 'ACTIVE' ? 'Active' : 'Inactive'}
          rows={rows.filter((r) => r.status === status)}
          onStatus={onStatus}
          onDelete={onDelete}
        />
      ))}
    </Stack>
  );
}

/**
 * A UUID stays on one line when the table has room; when ten columns are too many for the screen it breaks in
 * two rather than pushing Status and Actions out of the frame.
 */
const UUID_CELL = { minWidth: 150, overflowWrap: 'anywhere' } as const;

/** Human labels of the stored statuses (issue 12 item 5: no raw enum values on screen). */
const STATUS_LABELS: Record<UnansweredStatus, string> = { ACTIVE: 'Active', INACTIVE: 'Inactive' };

function UnansweredTable(props: {
  title: string;
  rows: UnansweredItem[];
  onStatus(row: UnansweredItem, status: UnansweredStatus): void;
  onDelete(row: UnansweredItem): void;
}) {
  return (
    <section aria-label={props.title}>
      <Title order={3} mb="xs">
        {props.title} <Badge variant="light">{props.rows.length}</Badge>
      </Title>
      {/* The headers stay when a table is empty; the empty state says there is nothing to act on. */}
      <RecordTable
        aria-label={`${props.title} unanswered conversations`}
        records={props.rows}
        minHeight={props.rows.length === 0 ? 110 : 0}
        emptyState={
          <Text c="dimmed" size="sm">
            No {props.title.toLowerCase()} unanswered conversations.
          </Text>
        }
        columns={[
          { accessor: 'id', title: 'ID' },
          {
            accessor: 'conversation.uuid',
            title: 'Conversation UUID',
            cellsStyle: () => UUID_CELL,
            render: (row) => (
              <Anchor component={Link} to={paths.conversation(row.conversation.uuid)} ff="monospace" size="sm">
                {row.conversation.uuid}
              </Anchor>
            ),
          },
          { accessor: 'conversation.phase', title: 'Phase' },
          { accessor: 'followUpCount', title: 'Follow Ups' },
          {
            accessor: 'earliestReplyDateTime',
            title: 'Earliest Reply',
            render: (row) => new Date(row.earliestReplyDateTime).toLocaleString(),
          },
          {
            accessor: 'conversation.Prospect.uuid',
            title: 'Prospect UUID',
            cellsStyle: () => UUID_CELL,
            render: (row) =>
              row.conversation.Prospect ? (
                <Text ff="monospace" size="sm" span>
                  {row.conversation.Prospect.uuid}
                </Text>
              ) : (
                '—'
              ),
          },
          {
            accessor: 'conversation.Prospect.messagingAccount.pageName',
            title: 'Account Name',
            render: (row) => row.conversation.Prospect?.messagingAccount.pageName ?? '—',
          },
          { accessor: 'errors', title: 'Errors', width: 260, render: (row) => <ErrorList text={row.errors} /> },
          {
            accessor: 'status',
            title: 'Status',
            render: (row) => (
              // Never cut to 'A…' when the columns are tight: the word is short and must stay whole.
              <Badge variant="light" color={row.status === 'ACTIVE' ? 'green' : 'gray'} styles={{ label: { overflow: 'visible' } }}>
                {STATUS_LABELS[row.status]}
              </Badge>
            ),
          },
          actionsColumn((row: UnansweredItem) => (
            <>
              {row.status === 'ACTIVE' ? (
                <Button size="xs" variant="light" leftSection={<IconPlayerPause size={14} aria-hidden />} onClick={() => props.onStatus(row, 'INACTIVE')}>
                  Deactivate
                </Button>
              ) : (
                <Button size="xs" variant="light" leftSection={<IconPlayerPlay size={14} aria-hidden />} onClick={() => props.onStatus(row, 'ACTIVE')}>
                  Activate
                </Button>
              )}
              <DeleteAction onClick={() => props.onDelete(row)} />
            </>
          ), 120),
        ]}
      />
    </section>
  );
}
