import { type QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, cleanup, fireEvent, renderHook, screen, waitFor, within } from '@testing-library/react';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import { findToast, renderApp, testQueryClient } from '../../../test/render-app.tsx';
import { conversationKeys, conversationListQuery, conversationQuery, LIVE_REFRESH_MS, openInboxStream } from '../api/conversations.ts';
import { readDraft } from '../lib/drafts.ts';
import { conversationDetail, TEST_PROSPECT, TEST_UUID } from '../testing/fixtures.ts';
import { ConversationView } from './conversation-view.tsx';

const UUID = TEST_UUID;

const detail = (messages: string[]): ConversationDetail =>
  conversationDetail({ messages: messages.map((message, i) => ({ id: i + 1, role: 'AGENT', author: { kind: 'ai' }, message, dateSent: `2026-01-01T10:0${i}:00.000Z` })) });

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The server at the network boundary: `online` false makes the conversation's reads fail as a dropped connection does. */
let server: { online: boolean; conversation: ConversationDetail; sent: string[] };
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let client: QueryClient;

beforeAll(stubMissingBrowserApis);
beforeEach(() => {
  sessionStorage.clear();
  server = { online: true, conversation: detail(['Hello! How can I help?']), sent: [] };
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/user/get-session') return json({ error: 'Not signed in' }, 401);
    if (url === `/api/conversation/${UUID}/call`) return json({ call: null });
    if (url === `/api/conversation/${UUID}/written-message`) {
      server.sent.push(JSON.parse(String(init?.body)).message);
      return json({ message: 'Message sent' });
    }
    if (url === `/api/conversation/${UUID}`) {
      if (!server.online) throw new TypeError('Failed to fetch');
      return json(server.conversation);
    }
    if (url.startsWith('/api/conversation/list')) return json({ conversations: [], totalPages: 0, totalPagesIsLowerBound: false });
    return json({ error: `unexpected ${url}` }, 500);
  });
  vi.stubGlobal('fetch', fetchMock);
  client = testQueryClient();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const box = () => screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
const type = (text: string) => fireEvent.change(box(), { target: { value: text } });

describe('ConversationView keeps what a person typed (issue 18)', () => {
  it('a failed background refresh keeps the conversation and the draft, with a notice until a refetch succeeds', async () => {
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    await screen.findByRole('textbox', { name: 'Message' });
    type('I would like 40 widgets');

    server.online = false;
    await act(() => client.refetchQueries({ queryKey: conversationKeys.detail(UUID), exact: true }));
    expect(await screen.findByTestId('reconnecting')).toBeTruthy();
    expect(screen.getByText('Reconnecting…')).toBeTruthy();
    // The same box, still holding the text; the thread is still there; no error replaced them.
    expect(box().value).toBe('I would like 40 widgets');
    expect(screen.getAllByText('Hello! How can I help?').length).toBeGreaterThan(0);
    expect(screen.queryByText(/^Error:/)).toBeNull();

    server.online = true;
    server.conversation = detail(['Hello! How can I help?', 'Anything else?']);
    await act(() => client.refetchQueries({ queryKey: conversationKeys.detail(UUID), exact: true }));
    await waitFor(() => expect(screen.queryByTestId('reconnecting')).toBeNull());
    expect(screen.getByText('Anything else?')).toBeTruthy();
    expect(box().value).toBe('I would like 40 widgets');
  });

  it('a first load that fails shows the error', async () => {
    server.online = false;
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    expect(await screen.findByText('Error: Could not reach the server. Check your connection and try again.')).toBeTruthy();
    expect(screen.queryByTestId('reconnecting')).toBeNull();
  });

  it('a draft survives the box unmounting and mounting again (and a reload: it is in sessionStorage), and goes once sent', async () => {
    const view = renderApp(<ConversationView uuid={UUID} mode="pane" />, { client });
    await screen.findByRole('textbox', { name: 'Message' });
    type('Half a reply');
    view.unmount();
    expect(sessionStorage.getItem(`sales-agent:draft:${UUID}`)).toBe('Half a reply');

    renderApp(<ConversationView uuid={UUID} mode="pane" />, { client });
    await waitFor(() => expect(box().value).toBe('Half a reply'));

    fireEvent.keyDown(box(), { key: 'Enter' });
    await waitFor(() => expect(server.sent).toEqual(['Half a reply']));
    await waitFor(() => expect(box().value).toBe(''));
    expect(readDraft(UUID)).toBe('');
    expect(sessionStorage.getItem(`sales-agent:draft:${UUID}`)).toBeNull();
  });

  it('drafts are per conversation: opening another one in the same pane does not carry the text over', async () => {
    const OTHER = '99999999-2222-4333-8444-555555555555';
    fetchMock.mockImplementation(async (url: string) => {
      if (url === '/api/user/get-session') return json({ error: 'Not signed in' }, 401);
      if (url.endsWith('/call')) return json({ call: null });
      const uuid = url.split('/').at(-1)!;
      return json({ ...detail(['Hi']), uuid });
    });
    const view = renderApp(<ConversationView uuid={UUID} mode="pane" />, { client });
    await screen.findByRole('textbox', { name: 'Message' });
    type('For the first one');
    view.rerender(<ConversationView uuid={OTHER} mode="pane" />);
    await waitFor(() => expect(box().value).toBe(''));
    view.rerender(<ConversationView uuid={UUID} mode="pane" />);
    await waitFor(() => expect(box().value).toBe('For the first one'));
  });
});

describe('ConversationView writes (issue 20: mutation hooks)', () => {
  it('a send the server refuses keeps the text in the box and says why; a send that works clears it', async () => {
    const answer = vi.fn(() => json({ error: 'The message could not be delivered to the channel' }, 502));
    const serve = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) =>
      url === `/api/conversation/${UUID}/written-message` ? answer() : serve(url, init),
    );
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    await screen.findByRole('textbox', { name: 'Message' });
    type('Forty widgets please');
    fireEvent.keyDown(box(), { key: 'Enter' });
    await findToast('The message could not be delivered to the channel', 'error');
    expect(box().value).toBe('Forty widgets please');

    answer.mockImplementation(() => json({ message: 'Message sent' }));
    fireEvent.keyDown(box(), { key: 'Enter' });
    await waitFor(() => expect(box().value).toBe(''));
    expect(answer).toHaveBeenCalledTimes(2);
  });

  it('Take over pauses the AI and offers Hand back, which resumes it at the chosen phase', async () => {
    server.conversation = { ...detail(['Hi']), canAdminister: true, prospectId: 7, Prospect: TEST_PROSPECT };
    const posted: { url: string; body: unknown }[] = [];
    const serve = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (url: string, init?: RequestInit) => {
      if (url === '/api/conversation/1/take-over' || url === '/api/conversation/1/hand-back') {
        posted.push({ url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
        const aiPaused = url.endsWith('take-over');
        server.conversation = { ...server.conversation, aiPaused };
        return json({ message: aiPaused ? 'You took over: the AI is paused' : 'Handed back to the AI', phase: 0, aiPaused });
      }
      if (url === '/api/conversation-type/listt') return json([]);
      return serve(url, init);
    });
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    const handOff = await screen.findByTestId('hand-off');
    expect(screen.queryByTestId('hand-back')).toBeNull();

    fireEvent.click(within(handOff).getByRole('button', { name: 'Take over' }));
    await findToast('You took over: the AI is paused');
    // The conversation was fetched again: the AI is paused, so Take over gives way to Hand back.
    await waitFor(() => expect(screen.getByTestId('hand-back')).toBeTruthy());
    expect(screen.queryByRole('button', { name: 'Take over' })).toBeNull();

    fireEvent.click(screen.getByTestId('hand-back'));
    await findToast('Handed back to the AI');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Take over' })).toBeTruthy());
    expect(posted).toEqual([
      { url: '/api/conversation/1/take-over', body: undefined },
      { url: '/api/conversation/1/hand-back', body: { phase: 0 } },
    ]);
  });
});

/** A stand-in for the browser's EventSource (jsdom has none): the test dispatches the server's events. */
class FakeEventSource extends EventTarget {
  static last: FakeEventSource | null = null;
  closed = false;
  constructor(readonly url: string) {
    super();
    FakeEventSource.last = this;
  }
  close() {
    this.closed = true;
  }
  send(name: string, data: unknown) {
    this.dispatchEvent(new MessageEvent(name, { data: JSON.stringify(data) }));
  }
}

describe('the inbox stream coalesces live events (issue 18)', () => {
  it('a burst of events costs one list refetch at once and one trailing refetch per second; the last event is never lost', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('EventSource', FakeEventSource);
    const listCalls = () => fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/conversation/list')).length;
    const detailCalls = () => fetchMock.mock.calls.filter(([url]) => url === `/api/conversation/${UUID}`).length;
    // The open inbox: the list and the open conversation are being watched.
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    renderHook(
      () => {
        useQuery(conversationListQuery({}));
        useQuery({ ...conversationQuery(UUID), refetchInterval: false });
      },
      { wrapper },
    );
    await vi.waitFor(() => expect(client.getQueryState(['conversations', {}])?.status).toBe('success'));
    await vi.waitFor(() => expect(client.getQueryState(['conversation', UUID])?.status).toBe('success'));
    expect([listCalls(), detailCalls()]).toEqual([1, 1]);

    const stream = openInboxStream(client);
    const source = FakeEventSource.last!;
    expect(source.url).toBe('/api/conversation/list/events');
    await act(async () => {
      for (let i = 0; i < 30; i++) {
        source.send('conversation.changed', { uuid: i === 29 ? UUID : `other-${i}` });
        await vi.advanceTimersByTimeAsync(10);
      }
    });
    // The first event refetched at once; the other 29, within the second, wait for one trailing refetch.
    expect(listCalls()).toBe(2);
    expect(detailCalls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS));
    expect(listCalls()).toBe(3);
    // The burst's last event named the open conversation: it is fetched once, with that trailing refetch.
    expect(detailCalls()).toBe(2);
    await act(() => vi.advanceTimersByTimeAsync(10 * LIVE_REFRESH_MS));
    expect(listCalls()).toBe(3);

    stream.close();
    expect(source.closed).toBe(true);
  });
});

describe('ConversationView shows what the agent did (issue 22)', () => {
  it('shows a booked meeting in its time zone and one compact line per tool call, the failure in words', async () => {
    server.conversation = conversationDetail({
      bookings: [{ start: '2026-12-01T09:00:00.000Z', end: '2026-12-01T09:30:00.000Z', timeZone: 'Europe/Berlin', provider: 'calcom', externalId: 'bk_1', status: 'booked' }],
      toolCalls: [
        { name: 'check_availability', arguments: {}, result: '{"slots":[]}', ok: true, durationMs: 42, createdAt: '2026-12-01T08:00:00.000Z' },
        { name: 'book_meeting', arguments: {}, result: 'Cal.com answered 401: Invalid API Key', ok: false, durationMs: 7, createdAt: '2026-12-01T08:00:01.000Z' },
      ],
    });
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    const actions = await screen.findByTestId('agent-actions');
    expect(within(actions).getByText('Meeting booked')).toBeTruthy();
    expect(within(actions).getByText('Tue, 1 Dec 2026, 10:00 (Europe/Berlin)')).toBeTruthy();
    const lines = within(actions).getAllByTestId('tool-call').map((l) => l.textContent);
    expect(lines).toEqual(['Tool check_availability answered in 42 ms', 'Tool book_meeting failed in 7 ms: Cal.com answered 401: Invalid API Key']);
  });

  it('shows the outcome analysis of an ended conversation', async () => {
    server.conversation = conversationDetail({ ended: true, analysis: { summary: 'Booked a demo for Tuesday.', outcome: 'booked', score: 92 } });
    renderApp(<ConversationView uuid={UUID} mode="page" />, { client });
    const analysis = await screen.findByTestId('outcome-analysis');
    expect(within(analysis).getByText('Outcome: booked')).toBeTruthy();
    expect(within(analysis).getByText('Score 92/100')).toBeTruthy();
    expect(within(analysis).getByText('Booked a demo for Tuesday.')).toBeTruthy();
  });
});
