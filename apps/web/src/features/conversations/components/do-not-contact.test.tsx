import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, expect, it, type Mock, vi } from 'vitest';
import { stubMissingBrowserApis } from '../../../test/browser-stubs.ts';
import { renderApp, testQueryClient } from '../../../test/render-app.tsx';
import { conversationDetail, TEST_PROSPECT } from '../testing/fixtures.ts';
import { DoNotContact } from './do-not-contact.tsx';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

beforeAll(stubMissingBrowserApis);
beforeEach(() => {
  fetchMock = vi.fn(async (url: string) => {
    if (url === '/api/conversation/7/do-not-contact/clear') return json({ message: 'Opt-out cleared', doNotContact: null });
    return json({ error: `unexpected ${url}` }, 500);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const optedOut = conversationDetail({
  id: 7,
  prospectId: 3,
  Prospect: TEST_PROSPECT,
  canAdminister: true,
  doNotContact: { sms: { since: '2026-01-01T10:00:00.000Z', how: 'keyword "STOP"' } },
});

it('says when and how the prospect opted out, and clears only with a note', async () => {
  renderApp(<DoNotContact conversation={optedOut} canClear />, { client: testQueryClient() });
  expect(screen.getByTestId('do-not-contact').textContent).toMatch(/Opted out on sms \(keyword "STOP"\)/);
  fireEvent.click(screen.getByRole('button', { name: 'Clear opt-out…' }));
  const clear = screen.getByRole('button', { name: 'Clear with this note' });
  expect((clear as HTMLButtonElement).disabled).toBe(true);
  fireEvent.change(screen.getByRole('textbox', { name: 'Why may they be contacted again?' }), { target: { value: 'Asked by phone to hear from us.' } });
  fireEvent.click(clear);
  await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/conversation/7/do-not-contact/clear', expect.anything()));
  const body = JSON.parse(String(fetchMock.mock.calls.find(([u]) => u.endsWith('/clear'))![1]!.body));
  expect(body).toEqual({ note: 'Asked by phone to hear from us.' });
});

it('shows nothing for a prospect who may be contacted, and no clear button for a viewer who may not change it', () => {
  const { container } = renderApp(<DoNotContact conversation={conversationDetail({ doNotContact: null })} canClear />, { client: testQueryClient() });
  expect(container.querySelector('[data-testid="do-not-contact"]')).toBeNull();
  cleanup();
  renderApp(<DoNotContact conversation={optedOut} canClear={false} />, { client: testQueryClient() });
  expect(screen.queryByRole('button', { name: 'Clear opt-out…' })).toBeNull();
});

it('names an all-channels opt-out and a web chat opt-out in words', () => {
  const all = conversationDetail({ ...optedOut, doNotContact: { all: { since: '2026-01-01T10:00:00.000Z', how: 'keyword "STOP" on sms' } } });
  renderApp(<DoNotContact conversation={all} canClear />, { client: testQueryClient() });
  expect(screen.getByTestId('do-not-contact').textContent).toMatch(/Opted out on every channel \(keyword "STOP" on sms\)/);
  cleanup();
  const web = conversationDetail({ ...optedOut, prospectId: null, Prospect: null, doNotContact: { web: { since: '2026-01-01T10:00:00.000Z', how: 'keyword "STOP"' } } });
  renderApp(<DoNotContact conversation={web} canClear />, { client: testQueryClient() });
  expect(screen.getByTestId('do-not-contact').textContent).toMatch(/Opted out in this web chat \(keyword "STOP"\)/);
});
