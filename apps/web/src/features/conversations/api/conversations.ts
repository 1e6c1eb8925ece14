import { type QueryClient, queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { LIMITS } from '@sales-agent/shared/limits';
import type { ConversationDetail, ConversationListResponse, MarkReadResponse } from '@sales-agent/shared/schemas/conversation';
import { useCallback, useEffect, useRef } from 'react';
import { afterPaint } from '../../../lib/after-paint.ts';
import { api } from '../../../lib/api-client.ts';
import { throttleTrailing } from '../../../lib/throttle.ts';
import { clearUnread } from '../lib/unread.ts';

/**
 * Every query key of conversations, in one place: invalidation and the query options are written against
 * these, never against literals. A conversation's own key prefixes what belongs to it (its call), so
 * refreshing a conversation refreshes those too.
 */
export const conversationKeys = {
  /** Every list page and filter (`['conversations', params]`). */
  lists: () => ['conversations'] as const,
  list: (params: ConversationListParams) => ['conversations', params] as const,
  detail: (uuid: string) => ['conversation', uuid] as const,
  call: (uuid: string) => ['conversation', uuid, 'call'] as const,
  typeOptions: () => ['conversation-type-options'] as const,
  /** The signed-in user's notifications (issue 24). */
  notifications: () => ['notifications'] as const,
};

/** What the start screen and the type select need of a conversation type (GET /api/conversation-type/listt). */
export interface ConversationTypeOption {
  id: number;
  title: string | null;
  label: string;
  initialMessage: string | null;
  /** Present for an ADMIN only (others are given public types alone). */
  isPublic?: boolean;
}

export const conversationTypeOptionsQuery = () =>
  queryOptions({
    queryKey: conversationKeys.typeOptions(),
    queryFn: () => api.get<ConversationTypeOption[]>('/api/conversation-type/listt'),
    staleTime: 30_000,
  });

export const startConversation = (conversationTypeId: number) =>
  api.post<{ uuid: string }>('/api/conversation/new', { conversationTypeId });

export const conversationQuery = (uuid: string) =>
  queryOptions({
    queryKey: conversationKeys.detail(uuid),
    queryFn: () => api.get<ConversationDetail>(`/api/conversation/${uuid}`),
    // Spec §4: the detail refreshes every 10 s; live events (useConversationEvents) make it sooner.
    refetchInterval: LIMITS.conversationRefreshMs,
  });

/**
 * Live events refetch at most once per this many ms per stream (issue 18): the first event of a quiet spell at
 * once, a burst's later events in one trailing refetch, so the last change is never missed.
 */
export const LIVE_REFRESH_MS = 1000;

/**
 * Invalidates the conversation query on server-sent `conversation.changed` events (coalesced, LIVE_REFRESH_MS),
 * so new agent messages appear within about a second. The 10 s poll stays as the fallback (another server
 * instance, lost stream).
 */
export function useConversationEvents(uuid: string, enabled: boolean) {
  const client = useQueryClient();
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    const source = new EventSource(`/api/conversation/${uuid}/events`);
    const refresh = throttleTrailing(() => void client.invalidateQueries({ queryKey: conversationKeys.detail(uuid) }), LIVE_REFRESH_MS);
    source.addEventListener('conversation.changed', refresh.call);
    // A change between the first load and the stream's opening would be missed: catch up once it is open.
    source.addEventListener('ready', refresh.call);
    return () => {
      refresh.cancel();
      source.close();
    };
  }, [uuid, enabled, client]);
}

export type ConversationListParams = Record<string, string>;

export const conversationListQuery = (params: ConversationListParams) =>
  queryOptions({
    queryKey: conversationKeys.list(params),
    queryFn: () => api.get<ConversationListResponse>('/api/conversation/list', params),
    placeholderData: (previous) => previous,
  });

export const useConversationList = (params: ConversationListParams) => useQuery(conversationListQuery(params));

/**
 * The inbox's live list (issue 12): every change of a conversation the user may see refreshes the list and
 * that conversation. The list also refetches every 30 s as the fallback for a lost stream.
 */
export function useInboxEvents(enabled: boolean) {
  const client = useQueryClient();
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    let stream: { close(): void } | undefined;
    // Opened once the list is on screen: the stream is not part of the first screen (lib/after-paint.ts).
    const cancel = afterPaint(() => {
      stream = openInboxStream(client);
    });
    return () => {
      cancel();
      stream?.close();
    };
  }, [enabled, client]);
}

/**
 * The inbox's EventSource. Events are coalesced (issue 18): a burst costs at most one list refetch per
 * LIVE_REFRESH_MS, and each conversation named in it is invalidated once with that refetch (only an open
 * one is fetched again). The trailing refetch after a burst always runs, so the last change shows.
 */
export function openInboxStream(client: QueryClient): { close(): void } {
  const source = new EventSource('/api/conversation/list/events');
  const changed = new Set<string>();
  const refresh = throttleTrailing(() => {
    const uuids = [...changed];
    changed.clear();
    void client.invalidateQueries({ queryKey: conversationKeys.lists() });
    // A notification for this user (assigned, mentioned) comes as a list event too (issue 24).
    void client.invalidateQueries({ queryKey: conversationKeys.notifications() });
    for (const uuid of uuids) void client.invalidateQueries({ queryKey: conversationKeys.detail(uuid) });
  }, LIVE_REFRESH_MS);
  // Changes between the list's first load and the stream's opening (or a reconnect) are caught up here.
  source.addEventListener('ready', refresh.call);
  source.addEventListener('conversation.changed', (event) => {
    try {
      const { uuid } = JSON.parse((event as MessageEvent<string>).data) as { uuid: string };
      if (typeof uuid === 'string') changed.add(uuid);
    } catch {
      // A malformed event only costs the detail refresh; the 10 s poll catches up.
    }
    refresh.call();
  });
  return {
    close() {
      refresh.cancel();
      source.close();
    },
  };
}

/** Marks a conversation read by the signed-in user up to the latest message they have seen (issue 12). */
export const markConversationRead = (uuid: string, lastMessageDate: string) =>
  api.put<MarkReadResponse>(`/api/conversation/${uuid}/read`, { lastMessageDate });

/** How long marks of one conversation gather before the request: a burst of new messages costs one write. */
export const MARK_READ_DEBOUNCE_MS = 400;

/**
 * `markRead(uuid, upTo)`: the cached list shows the row read at once (optimistic), and the server is told
 * after MARK_READ_DEBOUNCE_MS, once per burst, up to the latest message seen. Marks still waiting when the
 * inbox goes away are sent then, not dropped. A failed request only refetches the list (the mark comes back);
 * a toast for it would interrupt reading for something the next open retries.
 */
export function useMarkRead() {
  const client = useQueryClient();
  const pending = useRef(new Map<string, { upTo: string; timer: ReturnType<typeof setTimeout> }>());
  const send = useCallback(
    (uuid: string, upTo: string) => {
      pending.current.delete(uuid);
      markConversationRead(uuid, upTo).catch(() => void client.invalidateQueries({ queryKey: conversationKeys.lists() }));
    },
    [client],
  );
  useEffect(() => {
    const waiting = pending.current;
    return () => {
      for (const [uuid, { upTo, timer }] of waiting) {
        clearTimeout(timer);
        send(uuid, upTo);
      }
    };
  }, [send]);
  return useCallback(
    (uuid: string, upTo: string) => {
      client.setQueriesData<ConversationListResponse>({ queryKey: conversationKeys.lists() }, (list) => clearUnread(list, uuid, upTo));
      const previous = pending.current.get(uuid);
      if (previous) clearTimeout(previous.timer);
      const latest = previous && Date.parse(previous.upTo) > Date.parse(upTo) ? previous.upTo : upTo;
      pending.current.set(uuid, { upTo: latest, timer: setTimeout(() => send(uuid, latest), MARK_READ_DEBOUNCE_MS) });
    },
    [client, send],
  );
}
