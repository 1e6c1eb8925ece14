import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { HandoffsSection } from './handoffs-section.tsx';
import { VoiceSection } from './voice-section.tsx';

const filters = { conversationType: '3', from: '2025-07-01', to: '2025-07-01', channel: '', messagingAccount: '' };

describe('FigureSection (the frame of every analytics figure)', () => {
  it('shows the figure once it has loaded, with its CSV export', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => json({
      conversations: 5, handedOff: 1, handedOffShare: 0.2,
      total: { reason: 'ALL', handoffs: 1, answered: 1, answerSeconds: { p50: 60, p90: 60 } },
      byReason: [{ reason: 'TAKEN_OVER', handoffs: 1, answered: 1, answerSeconds: { p50: 60, p90: 60 } }],
    })));
    renderApp(<HandoffsSection filters={filters} />);
    expect(await screen.findByRole('row', { name: /^A person took over 1 1 60 s 60 s/ })).toBeTruthy();
    expect(screen.getByText('1 of 5 conversations handed to a person (20 %)')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export Hand-offs CSV' })).toBeTruthy();
  });

  it('shows the error as an alert', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => json({ error: 'from must be before to', code: 'VALIDATION_ERROR' }, 400)));
    renderApp(<VoiceSection filters={filters} />);
    expect((await screen.findByRole('alert')).textContent).toContain('from must be before to');
  });
});
