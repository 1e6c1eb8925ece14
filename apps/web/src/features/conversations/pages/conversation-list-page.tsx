import { Alert, Anchor, Group, Loader, Pagination, Select, Stack, Table, Text } from '@mantine/core';
import { LIMITS, TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { Link, useSearchParams } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useConversationList } from '../api/conversations.ts';
import { ListFilters } from '../components/list-filters.tsx';

/** Durations are shown as hours, minutes and seconds (spec §9). */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}h ${String(m).padStart(2, '0')}m ${String(s % 60).padStart(2, '0')}s`;
}

/** Spec §2.13 conversation list; filters, order and page live in the query string (spec §2.2). */
export default function ConversationListPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const params = Object.fromEntries(searchParams.entries());
  const list = useConversationList(params);
  const page = Number(searchParams.get('page') ?? 1) || 1;
  const limit = searchParams.get('limit') ?? String(LIMITS.conversationPageSizes[0]);

  /** Any filter change goes back to page 1; null removes a parameter. */
  const update = (changes: Record<string, string | null>, keepPage = false) => {
    const next = new URLSearchParams(searchParams);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(key);
      else next.set(key, value);
    }
    if (!keepPage) next.delete('page');
    setSearchParams(next);
  };

  const data = list.data;
  return (
    <Stack>
      <PageTitle>Conversations</PageTitle>
      <ListFilters params={searchParams} onChange={(changes) => update(changes)} />
      {list.isPending ? (
        <Loader aria-label="Loading conversations" />
      ) : list.isError ? (
        <Alert color="red">{errorMessage(list.error)}</Alert>
      ) : (
        <>
          <Table.ScrollContainer minWidth={1200}>
            <Table striped highlightOnHover aria-label="Conversations">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>UUID</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Rating</Table.Th>
                  <Table.Th>Phase</Table.Th>
                  <Table.Th>Recording Duration</Table.Th>
                  <Table.Th>Recording URL</Table.Th>
                  <Table.Th>Messages</Table.Th>
                  <Table.Th>Last Message Date</Table.Th>
                  <Table.Th>Prospect UUID</Table.Th>
                  <Table.Th>Messaging Account</Table.Th>
                  <Table.Th>Channel</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data?.conversations.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>
                      <Anchor component={Link} to={paths.conversation(c.uuid)} ff="monospace" size="sm">
                        {c.uuid}
                      </Anchor>
                    </Table.Td>
                    <Table.Td title={c.ConversationType?.title ?? undefined}>
                      {c.ConversationType ? truncate(c.ConversationType.title ?? `Type ${c.ConversationType.id}`, TRUNCATE.conversationListType) : '—'}
                    </Table.Td>
                    <Table.Td>{c.rating ?? '—'}</Table.Td>
                    <Table.Td>{c.phase}</Table.Td>
                    <Table.Td>{formatDuration(c.recordingDuration)}</Table.Td>
                    <Table.Td>
                      {c.recordingUrl ? (
                        <Anchor href={c.recordingUrl} target="_blank" rel="noreferrer">
                          Listen
                        </Anchor>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                    <Table.Td>{c.messagesCount}</Table.Td>
                    <Table.Td>{c.lastMessageDate ? new Date(c.lastMessageDate).toLocaleString() : '—'}</Table.Td>
                    <Table.Td>
                      {c.Prospect?.name && (
                        <Text size="sm" fw={600} data-testid="prospect-name">
                          {c.Prospect.name}
                        </Text>
                      )}
                      <Text ff="monospace" fz="sm">
                        {c.Prospect?.uuid ?? '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>{c.Prospect?.messagingAccount.pageName ?? 'Web chat'}</Table.Td>
                    <Table.Td>
                      <ChannelBadge type={c.Prospect?.messagingAccount.type} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {data?.conversations.length === 0 && <Text c="dimmed">No conversations match these filters.</Text>}
          <Group justify="space-between">
            <Group gap="xs">
              <Pagination
                total={Math.max(1, data?.totalPages ?? 1)}
                value={page}
                onChange={(p) => update({ page: String(p) }, true)}
                aria-label="Pages"
                getControlProps={(control) => ({ 'aria-label': `${control} page` })}
              />
              <Text size="sm" c="dimmed" data-testid="total-pages">
                Page {page} of {data?.totalPages ?? 0}
                {data?.totalPagesIsLowerBound ? '+' : ''}
              </Text>
            </Group>
            <Select
              aria-label="Page size"
              data={LIMITS.conversationPageSizes.map(String)}
              value={limit}
              onChange={(v) => update({ limit: v })}
              allowDeselect={false}
              w={100}
            />
          </Group>
        </>
      )}
    </Stack>
  );
}
