import { fireEvent, screen, waitFor } from '@testing-library/react';
import { expect, it, vi } from 'vitest';

import { renderApp, testQueryClient } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { conversationDetail, TEST_PROSPECT } from '../testing/fixtures.ts';
import { WhatsAppOptIn } from './whatsapp-opt-in.tsx';


const consentCalls = () => {
  const fetchMock = vi.fn(async (url: string, _init?: RequestInit) =>
    url === '/api/conversation/9/consent' ? json({ message: 'Opt-in recorded' }) : json({ error: `unexpected ${url}` }, 500),
  );
  vi.stubGlobal('fetch', fetchMock);
  return () => fetchMock.mock.calls.filter(([u]) => u.endsWith('/consent')).map(([, init]) => JSON.parse(String(init!.body)) as unknown);
};
const prospect = (whatsappOptIn: NonNullable<Parameters<typeof conversationDetail>[0]>['whatsappOptIn']) =>
  conversationDetail({ id: 9, prospectId: 3, Prospect: TEST_PROSPECT, canAdminister: true, whatsappOptIn });

it('with none recorded, records an opt-in only with a note and sends it as granted', async () => {
  const sent = consentCalls();
  renderApp(<WhatsAppOptIn conversation={prospect(null)} />, { client: testQueryClient() });
  expect(screen.getByTestId('whatsapp-opt-in-state').textContent).toBe('None recorded');
  fireEvent.click(screen.getByRole('button', { name: 'Record opt-in…' }));
  const submit = screen.getByRole('button', { name: 'Record with this note' }) as HTMLButtonElement;
  expect(submit.disabled).toBe(true);
  fireEvent.change(screen.getByRole('textbox', { name: 'Where and how did they opt in?' }), { target: { value: 'ok' } });
  expect(submit.disabled).toBe(true);
  fireEvent.change(screen.getByRole('textbox', { name: 'Where and how did they opt in?' }), { target: { value: '  Agreed on the call of 3 May. ' } });
  fireEvent.click(submit);
  await waitFor(() => expect(sent()).toEqual([{ channel: 'whatsapp', granted: true, note: 'Agreed on the call of 3 May.' }]));
  // Done: the form closes and the button is back.
  await waitFor(() => expect(screen.getByRole('button', { name: 'Record opt-in…' })).toBeTruthy());
});

it('with an opt-in, says where it came from and withdraws it with a note; Cancel closes the form', async () => {
  const sent = consentCalls();
  renderApp(<WhatsAppOptIn conversation={prospect({ granted: true, source: 'prospect wrote first', at: '2026-01-01T10:00:00.000Z' })} />, {
    client: testQueryClient(),
  });
  expect(screen.getByTestId('whatsapp-opt-in-state').textContent).toBe('Opted in');
  expect(screen.getByTestId('whatsapp-opt-in').textContent).toMatch(/the prospect wrote first/);
  fireEvent.click(screen.getByRole('button', { name: 'Withdraw opt-in…' }));
  fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
  expect(screen.queryByRole('button', { name: 'Withdraw with this note' })).toBeNull();
  fireEvent.click(screen.getByRole('button', { name: 'Withdraw opt-in…' }));
  fireEvent.change(screen.getByRole('textbox', { name: 'Why is the opt-in withdrawn?' }), { target: { value: 'Asked not to get offers.' } });
  fireEvent.click(screen.getByRole('button', { name: 'Withdraw with this note' }));
  await waitFor(() => expect(sent()).toEqual([{ channel: 'whatsapp', granted: false, note: 'Asked not to get offers.' }]));
});

it('shows a withdrawal as such, and nothing when the server sent no opt-in state (web chat, a viewer)', () => {
  consentCalls();
  const { container, unmount } = renderApp(<WhatsAppOptIn conversation={prospect({ granted: false, source: 'import', at: '2026-01-01T10:00:00.000Z' })} />, {
    client: testQueryClient(),
  });
  expect(screen.getByTestId('whatsapp-opt-in-state').textContent).toBe('Withdrawn');
  expect(screen.getByRole('button', { name: 'Record opt-in…' })).toBeTruthy();
  unmount();
  renderApp(<WhatsAppOptIn conversation={conversationDetail()} />, { client: testQueryClient() });
  expect(container.querySelector('[data-testid="whatsapp-opt-in"]')).toBeNull();
  expect(screen.queryByTestId('whatsapp-opt-in')).toBeNull();
});
