import { fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import CampaignPage from './campaign-page.tsx';

/** A campaign's page (issue 23 item 4): progress, settings in words, export, audit, and Pause. */
const counts = { total: 3, queued: 1, calling: 1, done: 1, failed: 0, optedOut: 0, answered: 1, voicemail: 0, noAnswer: 0, busy: 0, sent: 0, booked: 0 };
const campaign = (status: string) => ({
  id: 5,
  name: 'Spring list',
  conversationTypeId: 1,
  channel: 'call',
  status,
  callsPerMinute: 10,
  maxConcurrent: 2,
  window: { start: '09:00', end: '18:00' },
  retries: 1,
  retryDelayMinutes: 60,
  retryPolicy: { noAnswer: 1, busy: 0, voicemail: 2, delayMinutes: 60 },
  voicemailMessage: 'Hi, this is Sam. Call us back!',
  startAt: null,
  whatsappTemplate: null,
  audience: { ghlPipelineStageId: 'st-new' },
  createdAt: '2030-01-16T15:00:00.000Z',
  startedAt: '2030-01-16T15:00:00.000Z',
  finishedAt: null,
  counts,
  contacts: [
    { phone: '+12125550001', name: 'Dana', status: 'answered', attempts: 1, conversationUuid: '11111111-2222-3333-4444-555555555555', detail: null, code: null, finishedAt: null },
    { phone: '+12125550002', name: null, status: 'calling', attempts: 1, conversationUuid: null, detail: null, code: null, finishedAt: null },
    { phone: '+12125550003', name: null, status: 'queued', attempts: 0, conversationUuid: null, detail: null, code: null, finishedAt: null },
  ],
  events: [{ kind: 'started', at: '2030-01-16T15:00:00.000Z', by: 'admin@example.com' }],
});

describe('CampaignPage', () => {
  it('shows the progress, its settings in words, export and audit, and pauses the campaign', async () => {
    let status = 'running';
    const posts: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'POST') {
          posts.push(url);
          status = 'paused';
          return json({ ...campaign(status), contacts: undefined, events: undefined });
        }
        return json(campaign(status));
      }),
    );
    renderApp(
      <Routes>
        <Route path="/admin/campaigns/:id" element={<CampaignPage />} />
      </Routes>,
      { route: '/admin/campaigns/5' },
    );
    expect(await screen.findByTestId('campaign-progress')).toHaveProperty('textContent', '1 of 3 contacts finished');
    // The rows' cells (mantine-datatable) do not render in jsdom; e2e/campaigns.spec.ts reads them in Chromium.
    expect(screen.getByRole('table', { name: 'Contacts' })).toBeTruthy();
    expect(screen.getByText(/at most 2 at once, between 09:00 and 18:00 in each person's local time/)).toBeTruthy();
    expect(screen.getByText(/tried again after no answer \(1×\), voicemail \(2×\), 60 min later/)).toBeTruthy();
    expect(screen.getByText(/GoHighLevel stage st-new/)).toBeTruthy();
    expect(screen.getByText('Voicemail message: “Hi, this is Sam. Call us back!”')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Export results (CSV)' }).getAttribute('href')).toBe('/api/admin/campaigns/5/export');
    expect(screen.getByTestId('campaign-audit').textContent).toContain('started');
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByRole('button', { name: 'Resume' })).toBeTruthy();
    expect(posts).toEqual(['/api/admin/campaigns/5/pause']);
  });
});
