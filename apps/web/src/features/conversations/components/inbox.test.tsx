import { useQuery } from '@tanstack/react-query';
import type { ConversationListItem } from '@sales-agent/shared/schemas/conversation';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { matchMediaAnswering } from '../../../test/browser-stubs.ts';
import { findToast, renderApp } from '../../../test/render-app.tsx';
import { conversationListQuery } from '../api/conversations.ts';
import { conversationDetail, TEST_PROSPECT, TEST_UUID } from '../testing/fixtures.ts';
import { Inbox } from './inbox.tsx';

const UUID = TEST_UUID;
const SENT = '2026-01-01T10:05:00.000Z';

const row = (over: Partial<ConversationListItem> = {}): ConversationListItem => ({
  id: 1,
  uuid: UUID,
  phase: 0,
  conversationTypeId: 1,
  ConversationType: { id: 1, title: 'Widgets' },
  rating: null,
  outcome: null,
  recordingDuration: null,
  recordingUrl: null,
  messagesCount: 2,
  lastMessageDate: SENT,
  prospectId: 7,
  Prospect: TEST_PROSPECT,
  phaseCount: 2,
  lastMessage: { role: 'PROSPECT', preview: 'Do you ship to Lisbon?', dateSent: SENT },
  aiPaused: false,
  needsHuman: false,
  followUp: null,
  costUsd: 0.01,
  unread: true,
  assignee: null,
  state: 'open',
  snoozedUntil: null,
  ...over,
});

const detail = () =>
  conversationDetail({
    ConversationType: { id: 1, title: 'Widgets', initialMessage: null, conversation_phases: [] },
    prospectId: 7,
    Prospect: TEST_PROSPECT,
    messages: [{ id: 1, role: 'PROSPECT', author: { kind: 'prospect' }, message: 'Do you ship to Lisbon?', dateSent: SENT }],
    canAdminister: true,
  });

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The server at the network boundary: one unread conversation until a read mark arrives. */
let server: { unread: boolean; reads: { url: string; body: unknown }[]; tookOver: boolean };

beforeEach(() => {
  sessionStorage.clear();
  // A wide screen: the list stays on screen beside the open conversation.
  vi.stubGlobal('matchMedia', matchMediaAnswering(true));
  server = { unread: true, reads: [], tookOver: false };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/user/get-session') return json({ email: 'team@example.com', role: 'ADMIN' });
      if (url.startsWith('/api/conversation/list')) return json({ conversations: [row({ unread: server.unread })], totalPages: 1, totalPagesIsLowerBound: false });
      if (url === `/api/conversation/${UUID}/read` && init?.method === 'PUT') {
        server.reads.push({ url, body: JSON.parse(String(init.body)) });
        server.unread = false;
        return json({ message: 'Marked read' });
      }
      if (url === '/api/conversation/1/take-over' && init?.method === 'POST') {
        server.tookOver = true;
        return json({ message: 'You took over: the AI is paused', phase: 0, aiPaused: true });
      }
      if (url === `/api/conversation/${UUID}`) return json({ ...detail(), aiPaused: server.tookOver });
      if (url === `/api/conversation/${UUID}/call`) return json({ call: null });
      if (url === '/api/conversation-type/listt') return json([]);
      return json({ error: `unexpected ${url}` }, 500);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The list page's use of the inbox: the list query, and the open conversation in state. */
function InboxHarness() {
  const list = useQuery(conversationListQuery({}));
  const [open, setOpen] = useState<string | null>(null);
  return <Inbox list={list} openUuid={open} onOpen={setOpen} pager={null} empty={<p>No conversations</p>} />;
}

describe('Inbox (issue 12)', () => {
  it('an unread conversation shows as new until opened; opening it marks it read at once and tells the server up to its last message', async () => {
    renderApp(<InboxHarness />);
    const item = await screen.findByTestId('inbox-row');
    expect(item.getAttribute('data-unread')).toBe('true');
    expect(within(item).getByTestId('unread-mark').textContent).toBe('New');
    expect(within(item).getByTestId('row-preview').textContent).toBe('Do you ship to Lisbon?');

    fireEvent.click(item);
    // Optimistic: the row reads as read before the server has been told.
    await waitFor(() => expect(screen.queryByTestId('unread-mark')).toBeNull());
    expect(screen.getByTestId('inbox-row').getAttribute('data-unread')).toBeNull();
    expect(screen.getByTestId('inbox-row').getAttribute('aria-current')).toBe('true');
    // After the read mark's debounce (MARK_READ_DEBOUNCE_MS); generous, as the machine may be busy.
    await waitFor(() => expect(server.reads).toEqual([{ url: `/api/conversation/${UUID}/read`, body: { lastMessageDate: SENT } }]), {
      timeout: 5000,
    });
    // The open conversation is shown with its reply box.
    expect(await screen.findByRole('textbox', { name: 'Message' })).toBeTruthy();
  });

  it('a read conversation has no mark and opening it sends no read mark', async () => {
    server.unread = false;
    renderApp(<InboxHarness />);
    const item = await screen.findByTestId('inbox-row');
    expect(within(item).queryByTestId('unread-mark')).toBeNull();
    fireEvent.click(item);
    await screen.findByRole('textbox', { name: 'Message' });
    expect(server.reads).toEqual([]);
  });

  it('t takes over the open conversation from the keyboard (outside the reply box)', async () => {
    renderApp(<InboxHarness />);
    fireEvent.click(await screen.findByTestId('inbox-row'));
    await screen.findByRole('button', { name: 'Take over' });
    fireEvent.keyDown(window, { key: 't' });
    await findToast('You took over: the AI is paused');
    await waitFor(() => expect(screen.getByTestId('hand-back')).toBeTruthy());
    expect(server.tookOver).toBe(true);
  });
});
