import { Alert, Anchor, Badge, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UnansweredStatus } from '@sales-agent/shared/enums';
import type { UnansweredItem } from '@sales-agent/shared/schemas/unanswered';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { deleteUnanswered, setUnansweredStatus, unansweredQuery } from '../api/unanswered.ts';
import { ErrorList } from '../components/error-list.tsx';

/** Spec §2.9: Active and Inactive tables, refreshed every 3 s. */
export default function UnansweredListPage() {
  const query = useQuery(unansweredQuery());
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: unansweredQuery().queryKey });

  const onStatus = async (row: UnansweredItem, status: UnansweredStatus) => {
    const verb = status === 'ACTIVE' ? 'Activate' : 'Deactivate';
    if (!(await confirmAction(`${verb} unanswered conversation ${row.id}?`, { confirmLabel: 'Confirm', danger: false }))) return;
    try {
      toastSuccess((await setUnansweredStatus(row.id, status)).message);
      await refresh();
    } catch (err) {
      toastError(err);
    }
  };
  const onDelete = async (row: UnansweredItem) => {
    if (!(await confirmAction(`Delete unanswered conversation ${row.id}?`, { confirmLabel: 'Confirm' }))) return;
    try {
      toastSuccess((await deleteUnanswered(row.id)).message);
      await refresh();
    } catch (err) {
      toastError(err);
    }
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
      <Table.ScrollContainer minWidth={1100}>
        <Table striped aria-label={`${props.title} unanswered conversations`} verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>ID</Table.Th>
              <Table.Th>Conversation UUID</Table.Th>
              <Table.Th>Phase</Table.Th>
              <Table.Th>Follow Ups</Table.Th>
              <Table.Th>Earliest Reply</Table.Th>
              <Table.Th>Prospect UUID</Table.Th>
              <Table.Th>Account Name</Table.Th>
              <Table.Th>Errors</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {props.rows.map((row) => (
              <Table.Tr key={row.id}>
                <Table.Td>{row.id}</Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={paths.conversation(row.conversation.uuid)} ff="monospace" size="sm">
                    {row.conversation.uuid}
                  </Anchor>
                </Table.Td>
                <Table.Td>{row.conversation.phase}</Table.Td>
                <Table.Td>{row.followUpCount}</Table.Td>
                <Table.Td>{new Date(row.earliestReplyDateTime).toLocaleString()}</Table.Td>
                <Table.Td ff="monospace" fz="sm">
                  {row.conversation.Prospect?.uuid ?? '—'}
                </Table.Td>
                <Table.Td>{row.conversation.Prospect?.messagingAccount.pageName ?? '—'}</Table.Td>
                <Table.Td maw={360}>
                  <ErrorList text={row.errors} />
                </Table.Td>
                <Table.Td>{row.status}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    {row.status === 'ACTIVE' ? (
                      <Button size="xs" variant="light" onClick={() => props.onStatus(row, 'INACTIVE')}>
                        Deactivate
                      </Button>
                    ) : (
                      <Button size="xs" variant="light" onClick={() => props.onStatus(row, 'ACTIVE')}>
                        Activate
                      </Button>
                    )}
                    <Button size="xs" color="red" variant="light" onClick={() => props.onDelete(row)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {props.rows.length === 0 && (
        <Text c="dimmed" size="sm">
          No {props.title.toLowerCase()} unanswered conversations.
        </Text>
      )}
    </section>
  );
}
