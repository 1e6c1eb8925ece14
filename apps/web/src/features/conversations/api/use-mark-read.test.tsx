import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook } from '@testing-library/react';
import type { ConversationListItem, ConversationListResponse } from '@sales-agent/shared/schemas/conversation';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MARK_READ_DEBOUNCE_MS, useMarkRead } from './conversations.ts';

const row = (uuid: string, dateSent: string) =>
  ({ uuid, unread: true, lastMessage: { role: 'PROSPECT', preview: 'Hi', dateSent } }) as ConversationListItem;

let fetchMock: ReturnType<typeof vi.fn>;
let client: QueryClient;

beforeEach(() => {
  vi.useFakeTimers();
  fetchMock = vi.fn(async () => new Response(JSON.stringify({ lastReadAt: 'x' }), { headers: { 'content-type': 'application/json' } }));
  vi.stubGlobal('fetch', fetchMock);
  client = new QueryClient();
  const list: ConversationListResponse = {
    conversations: [row('u1', '2026-01-01T10:00:00.000Z'), row('u2', '2026-01-01T09:00:00.000Z')],
    totalPages: 1,
    totalPagesIsLowerBound: false,
  };
  client.setQueryData(['conversations', {}], list);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
const sent = () => fetchMock.mock.calls.map(([url, init]) => [url, (init as RequestInit).method, JSON.parse(String((init as RequestInit).body))]);
const unreadOf = (uuid: string) => client.getQueryData<ConversationListResponse>(['conversations', {}])!.conversations.find((c) => c.uuid === uuid)!.unread;

describe('useMarkRead', () => {
  it('clears the cached mark at once and sends one request per burst, up to the latest message seen', () => {
    const { result } = renderHook(() => useMarkRead(), { wrapper });
    act(() => result.current('u1', '2026-01-01T09:59:00.000Z'));
    act(() => result.current('u1', '2026-01-01T10:00:00.000Z'));
    act(() => result.current('u1', '2026-01-01T09:58:00.000Z'));
    expect(unreadOf('u1')).toBe(false);
    expect(unreadOf('u2')).toBe(true);
    expect(fetchMock).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(MARK_READ_DEBOUNCE_MS));
    expect(sent()).toEqual([['/api/conversation/u1/read', 'PUT', { lastMessageDate: '2026-01-01T10:00:00.000Z' }]]);
  });

  it('sends the marks still waiting when the inbox goes away', () => {
    const { result, unmount } = renderHook(() => useMarkRead(), { wrapper });
    act(() => result.current('u2', '2026-01-01T09:00:00.000Z'));
    unmount();
    expect(sent()).toEqual([['/api/conversation/u2/read', 'PUT', { lastMessageDate: '2026-01-01T09:00:00.000Z' }]]);
    act(() => vi.advanceTimersByTime(MARK_READ_DEBOUNCE_MS));
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
