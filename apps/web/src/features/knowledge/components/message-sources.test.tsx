import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { MessageSources } from './message-sources.tsx';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const UUID = '11111111-1111-4111-8111-111111111111';

function server(passages: Record<string, unknown[]>) {
  const fetchFake = vi.fn(async (url: string) => {
    if (url === `/api/admin/knowledge/conversations/${UUID}/passages`) {
      return new Response(JSON.stringify({ passages }), { headers: { 'content-type': 'application/json' } });
    }
    return new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchFake);
}

it('lists the passages an agent message used, with title and link', async () => {
  server({
    '7': [
      { text: 'Installation costs 480 euros.', score: 0.4, sourceId: 3, title: 'Price list', url: 'https://shop.example/prices' },
      { text: 'Pro includes WhatsApp.', score: 0.2, sourceId: 4, title: 'Does Pro include WhatsApp?' },
    ],
  });
  renderApp(<MessageSources conversationUuid={UUID} messageCount={3} messageId={7} />);
  fireEvent.click(await screen.findByText('Sources used (2)'));
  expect(screen.getByRole('link', { name: 'Price list' }).getAttribute('href')).toBe('https://shop.example/prices');
  expect(screen.getByText(/Installation costs 480 euros/)).toBeTruthy();
  expect(screen.getByText('Does Pro include WhatsApp?')).toBeTruthy();
});

it('shows nothing for a message written without knowledge', async () => {
  server({ '7': [{ text: 'x', score: 1, sourceId: 1 }] });
  const { container } = renderApp(<MessageSources conversationUuid={UUID} messageCount={3} messageId={8} />);
  await vi.waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
  expect(container.querySelector('[data-testid="message-sources"]')).toBeNull();
});
