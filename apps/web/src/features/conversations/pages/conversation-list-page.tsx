import { Alert, Anchor, Badge, Box, Button, Group, Loader, NativeSelect, Pagination, Stack, Table, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { LIMITS, TRUNCATE } from '@sales-agent/shared/limits';
import { truncate } from '@sales-agent/shared/truncate';
import { IconFilter, IconInbox, IconTable } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ChannelBadge } from '../../../components/channel-badge.tsx';
import { isRefreshFailing, ReconnectingNotice } from '../../../components/reconnecting-notice.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { sessionQuery, useAuth } from '../../../lib/auth.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { conversationListQuery, useInboxEvents } from '../api/conversations.ts';
import { Inbox } from '../components/inbox.tsx';
import { InboxViews } from '../components/inbox-views.tsx';
import { NotificationsBell } from '../components/notifications-bell.tsx';
import { FILTER_KEYS } from '../lib/list-filter-keys.ts';

/**
 * The filter form and its drawer load when first shown (the drawer when first opened, the form beside the
 * table on a wide screen), not with the list's first screen.
 */
const loadFilters = () => import('../components/list-filters.tsx');
const ListFilters = lazy(async () => ({ default: (await loadFilters()).ListFilters }));
const FiltersDrawer = lazy(async () => ({ default: (await loadFilters()).FiltersDrawer }));

/** Durations are shown as hours, minutes and seconds (spec §9). */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}h ${String(m).padStart(2, '0')}m ${String(s % 60).padStart(2, '0')}s`;
}

const VIEWS = [
  { value: 'inbox', label: 'Inbox', icon: <IconInbox size={16} aria-hidden /> },
  { value: 'table', label: 'Table', icon: <IconTable size={16} aria-hidden /> },
] as const;

/** Query-string keys of the page itself (not list filters): the view and the open conversation. */
const PAGE_KEYS = ['view', 'open'];

/** The list request's parameters: the query string without the page's own keys. */
const listParams = (searchParams: URLSearchParams) => Object.fromEntries([...searchParams.entries()].filter(([key]) => !PAGE_KEYS.includes(key)));

/**
 * Opened directly, the page's first render already has its list (router.tsx, main.tsx): the document preloads
 * the request (vite.config.ts, FIRST_SCREENS) and this takes its answer, after the session check the route guard
 * needs. An anonymous visitor's 401 is cached as an error and the guard sends them to /login.
 */
export function prefetch(search: string): Promise<unknown> {
  return Promise.all([
    queryClient.prefetchQuery(sessionQuery),
    queryClient.prefetchQuery(conversationListQuery(listParams(new URLSearchParams(search)))),
  ]);
}

/**
 * /conversation/list (spec §2.2, §2.13): the inbox (default, issue 12) or the spec's table (?view=table).
 * Both read the same filters, order and page from the query string; the open conversation is ?open=uuid.
 */
export default function ConversationListPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const auth = useAuth();
  const view = searchParams.get('view') === 'table' ? 'table' : 'inbox';
  const list = useQuery({
    ...conversationListQuery(listParams(searchParams)),
    // A list prefetched for the first render is not asked for again as the page mounts; the live stream's
    // changes invalidate it whatever its age.
    staleTime: 5_000,
    // The live stream refreshes the list; this is the fallback when it is lost.
    refetchInterval: 30_000,
  });
  useInboxEvents(auth.isAuthenticated);
  const page = Number(searchParams.get('page') ?? 1) || 1;
  const limit = searchParams.get('limit') ?? String(LIMITS.conversationPageSizes[0]);
  const phone = !useMediaQuery('(min-width: 62em)', true, { getInitialValueInEffect: false });
  const [filtersOpen, filters] = useDisclosure(false);
  const [filtersUsed, setFiltersUsed] = useState(false);
  const activeFilters = FILTER_KEYS.filter((k) => searchParams.get(k) && !(k === 'hasRecording' && searchParams.get(k) === 'all')).length;

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
  /** The query string of a view: the same filters, no open conversation. */
  const viewSearch = (value: 'inbox' | 'table') => {
    const next = new URLSearchParams(searchParams);
    next.delete('open');
    if (value === 'table') next.set('view', 'table');
    else next.delete('view');
    const search = next.toString();
    return search ? `?${search}` : '';
  };
  const resetFilters = () => update(Object.fromEntries(FILTER_KEYS.map((k) => [k, null])));

  const data = list.data;
  const totalPages = data?.totalPages ?? 0;
  // A page past the end (an old link, rows gone since): go to the last page, never "Page 5 of 1" (issue 24).
  const pastTheEnd = data !== undefined && totalPages > 0 && page > totalPages && !data.totalPagesIsLowerBound;
  useEffect(() => {
    if (pastTheEnd) update({ page: String(totalPages) }, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pastTheEnd, totalPages]);
  const pager = (
    <Group justify="space-between" gap="xs" wrap="wrap">
      {totalPages > 1 ? (
        <Pagination
          size="sm"
          total={totalPages}
          value={Math.min(page, totalPages)}
          onChange={(p) => update({ page: String(p) }, true)}
          aria-label="Pages"
          siblings={phone || view === 'inbox' ? 0 : 1}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
        />
      ) : (
        <span />
      )}
      {/* 'Page 1 of 0' never shows: the line appears only when there is a page to be on. */}
      {totalPages > 0 && (
        <Text size="sm" c="dimmed" data-testid="total-pages">
          Page {Math.min(page, totalPages)} of {totalPages}
          {data?.totalPagesIsLowerBound ? '+' : ''}
        </Text>
      )}
      <NativeSelect
        aria-label="Page size"
        data={LIMITS.conversationPageSizes.map(String)}
        value={limit}
        onChange={(e) => update({ limit: e.currentTarget.value })}
        w={80}
        size="xs"
      />
    </Group>
  );

  const empty =
    activeFilters > 0 ? (
      <Stack p="md" gap="xs" data-testid="empty-state">
        <Text fw={600}>No conversations match these filters.</Text>
        <Text size="sm" c="dimmed">
          Loosen or reset the filters to see more.
        </Text>
        <Group>
          <Button size="xs" variant="light" onClick={resetFilters}>
            Reset filters
          </Button>
        </Group>
      </Stack>
    ) : (
      <Stack p="md" gap="xs" data-testid="empty-state">
        <Text fw={600}>No conversations yet.</Text>
        <Text size="sm" c="dimmed">
          {auth.isAdmin
            ? 'Conversations appear here when a prospect writes to a connected messaging account, a visitor starts a web chat, or a call is placed.'
            : 'You see the conversations of the messaging accounts you connected or were granted. Connect an account on your profile, or ask an administrator to grant you one.'}
        </Text>
        <Group>
          <Button size="xs" variant="light" component={Link} to={paths.conversationNew}>
            Try a web chat
          </Button>
        </Group>
      </Stack>
    );

  const filterForm = (
    <Suspense fallback={<Loader size="sm" aria-label="Loading the filters" />}>
      <ListFilters params={searchParams} onChange={(changes) => update(changes)} />
    </Suspense>
  );

  return (
    <Stack gap="sm">
      <PageTitle>Conversations</PageTitle>
      <Group justify="space-between" gap="xs">
        {/* The view is part of the address (?view=table), so the switch is a pair of links. */}
        <Button.Group aria-label="View">
          {VIEWS.map((v) => (
            <Button
              key={v.value}
              component={Link}
              to={{ search: viewSearch(v.value) }}
              size="xs"
              variant={view === v.value ? 'filled' : 'default'}
              aria-current={view === v.value ? 'page' : undefined}
              leftSection={v.icon}
            >
              {v.label}
            </Button>
          ))}
        </Button.Group>
        <Group gap="xs">
        {auth.isAuthenticated && (
          <NotificationsBell
            onOpen={(uuid) => update({ open: uuid }, true)}
            unreadConversations={list.data?.conversations.filter((c) => c.unread).length ?? 0}
            rows={list.data?.conversations}
          />
        )}
        {(view === 'inbox' || phone) && (
          <Button
            variant="default"
            size="xs"
            leftSection={<IconFilter size={16} aria-hidden />}
            onClick={() => {
              setFiltersUsed(true);
              filters.open();
            }}
            onPointerEnter={() => void loadFilters().catch(() => undefined)}
          >
            Filters{activeFilters ? ` (${activeFilters})` : ''}
          </Button>
        )}
        </Group>
      </Group>
      {view === 'inbox' && <InboxViews params={searchParams} onChange={(changes) => update(changes)} />}
      {filtersUsed && (
        <Suspense fallback={null}>
          <FiltersDrawer opened={filtersOpen} onClose={filters.close} phone={phone}>
            {filterForm}
          </FiltersDrawer>
        </Suspense>
      )}

      {view === 'inbox' ? (
        <Inbox list={list} openUuid={searchParams.get('open')} onOpen={(uuid) => update({ open: uuid }, true)} pager={pager} empty={empty} />
      ) : (
        <>
          {!phone && filterForm}
          {isRefreshFailing(list) && <ReconnectingNotice error={list.error ?? list.failureReason} />}
          {list.isPending ? (
            <Loader aria-label="Loading conversations" />
          ) : list.isError && !data ? (
            <Alert color="red">{errorMessage(list.error)}</Alert>
          ) : data?.conversations.length === 0 ? (
            <Box style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 8 }}>{empty}</Box>
          ) : (
            <Table.ScrollContainer minWidth={1200}>
              <Table striped highlightOnHover aria-label="Conversations">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>UUID</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Rating</Table.Th>
                    <Table.Th>Outcome</Table.Th>
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
                      <Table.Td data-testid="outcome">{c.outcome ?? '—'}</Table.Td>
                      <Table.Td>
                        {c.phase}
                        {c.needsHuman && (
                          <Badge ml={4} size="xs" color="red">
                            Needs a person
                          </Badge>
                        )}
                      </Table.Td>
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
          )}
          {!list.isPending && data && pager}
        </>
      )}
    </Stack>
  );
}
