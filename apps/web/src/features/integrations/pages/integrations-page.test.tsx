import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { findToast, renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import IntegrationsPage from './integrations-page.tsx';

/** The integrations screen (issue 27): a key is shown once; an endpoint shows its deliveries and resends one. */
const KEY = 'sak_1234567890abcdefghijklmnopqrstuvwxyzABCDEFG';

function server() {
  const keys: object[] = [];
  const calls: { method: string; url: string; body: unknown }[] = [];
  const fetchFake = vi.fn(async (url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url, body });
    if (url.startsWith('/api/admin/api-keys') && method === 'POST') {
      const view = { id: 1, name: body.name, prefix: KEY.slice(0, 10), scopes: body.scopes, createdBy: { id: 1, email: 'a@example.com' }, createdAt: new Date().toISOString(), lastUsedAt: null, revokedAt: null };
      keys.push(view);
      return json({ ...view, key: KEY }, 201);
    }
    if (url.startsWith('/api/admin/api-keys')) return json(keys);
    if (url.startsWith('/api/admin/webhooks/7/deliveries/3/resend')) return json({ deliveryId: 4 }, 202);
    if (url.startsWith('/api/admin/webhooks/7/deliveries')) {
      return json([
        { id: 3, eventId: 'e-1', type: 'meeting.booked', status: 'FAILED', attempts: 30, responseCode: 500, responseMs: 12, lastError: 'The receiver answered HTTP 500.', createdAt: new Date().toISOString(), lastAttemptAt: new Date().toISOString(), nextAttemptAt: null },
      ]);
    }
    if (url.startsWith('/api/admin/webhooks')) {
      return json([{ id: 7, url: 'https://hooks.example.com/a', events: ['meeting.booked'], enabled: false, disabledReason: 'Disabled automatically after 50 failed deliveries in a row.', consecutiveFailures: 50, createdAt: new Date().toISOString() }]);
    }
    return json({});
  });
  vi.stubGlobal('fetch', fetchFake);
  return calls;
}

describe('IntegrationsPage', () => {
  it('shows a new key once, then only its prefix in the list', async () => {
    const calls = server();
    renderApp(<IntegrationsPage />);
    fireEvent.change(screen.getByRole('textbox', { name: 'Key name' }), { target: { value: 'Zapier' } });
    fireEvent.click(screen.getByRole('checkbox', { name: /calls:write/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
    const shown = await screen.findByTestId('api-key-created');
    expect(within(shown).getByRole('textbox', { name: 'New API key' })).toHaveProperty('value', KEY);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Zapier', scopes: ['conversations:read', 'calls:write'] });
    await findToast(/Copy it now/);
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(within(table).getByText(`${KEY.slice(0, 10)}…`)).toBeTruthy();
    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByDisplayValue(KEY)).toBeNull();
  });

  it('shows a disabled endpoint’s notice and deliveries, and resends one', async () => {
    const calls = server();
    renderApp(<IntegrationsPage />);
    expect(await screen.findByText(/Disabled automatically after 50 failed deliveries/)).toBeTruthy();
    const table = await screen.findByRole('table', { name: 'Recent deliveries to https://hooks.example.com/a' });
    expect(within(table).getByText('FAILED')).toBeTruthy();
    expect(within(table).getByText('The receiver answered HTTP 500.')).toBeTruthy();
    fireEvent.click(within(table).getByRole('button', { name: 'Resend meeting.booked e-1' }));
    await findToast('Delivery queued again.');
    expect(calls.some((c) => c.method === 'POST' && c.url.startsWith('/api/admin/webhooks/7/deliveries/3/resend'))).toBe(true);
  });
});
