import { fireEvent, screen, waitFor } from '@testing-library/react';
import { expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { ConsentTable } from './consent-table.tsx';

const ITEM = { id: 1, address: '+34600310001', channel: 'whatsapp', granted: true, source: 'import', note: 'Fair list', by: 'admin@example.com', at: '2026-01-01T10:00:00.000Z' };

it('lists consent changes and imports a CSV, showing what was imported and which rows were skipped', async () => {
  let imported = false;
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url.startsWith('/api/admin/compliance/consents?')) return json(imported ? { items: [ITEM], total: 1 } : { items: [], total: 0 });
    if (url === '/api/admin/compliance/consents/import' && init?.method === 'POST') {
      imported = true;
      return json({ imported: 1, skipped: [{ row: 2, reason: '"12345" is not a valid phone number with its country code' }] }, 201);
    }
    return json({ error: `unexpected ${url}` }, 500);
  });
  vi.stubGlobal('fetch', fetchMock);
  const { container } = renderApp(<ConsentTable />);
  expect(await screen.findByText('No consent change matches.')).toBeTruthy();

  const input = container.querySelector('input[type="file"]') as HTMLInputElement;
  fireEvent.change(input, { target: { files: [new File(['phone\n+34600310001\n12345\n'], 'list.csv', { type: 'text/csv' })] } });
  const result = await screen.findByTestId('consent-import-result');
  expect(result.textContent).toMatch(/Imported 1 opt-in/);
  expect(result.textContent).toMatch(/Row 2: "12345" is not a valid phone number/);
  const body = fetchMock.mock.calls.find(([u]) => u.endsWith('/import'))![1]!.body as FormData;
  expect((body.get('file') as File).name).toBe('list.csv');
  // The list is asked again after the import (its rows are checked in Chromium: e2e/consents.spec.ts).
  await waitFor(() => expect(fetchMock.mock.calls.filter(([u]) => u.startsWith('/api/admin/compliance/consents?'))).toHaveLength(2));
  await waitFor(() => expect(screen.queryByText('No consent change matches.')).toBeNull());
});
