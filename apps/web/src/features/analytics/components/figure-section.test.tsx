import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import { CostSection } from './cost-section.tsx';
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

  it('shows a chart above the table until the switch says Table; the total row is last and bold', async () => {
    const row = { conversations: 2, booked: 1, llmUsd: 0.5, voiceUsd: 0, telephonyUsd: 0.25, totalUsd: 0.75, perConversationUsd: 0.375, perBookedUsd: null };
    vi.stubGlobal('fetch', vi.fn(async () => json({ total: { ...row, channel: 'ALL' }, byChannel: [{ ...row, channel: 'WEB' }] })));
    renderApp(<CostSection filters={filters} />);
    const rows = await screen.findAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual([
      'ChannelConversationsBookedLLMVoiceTelephonyTotalPer conversationPer booked meeting',
      'WEB21$0.5000$0.0000$0.2500$0.7500$0.3750–',
      'All channels21$0.5000$0.0000$0.2500$0.7500$0.3750–',
    ]);
    expect(rows[2].getAttribute('style') ?? '').toContain('font-weight: 600');
    expect(screen.getByRole('img', { name: /^Cost chart/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: 'Table' }));
    expect(screen.queryByRole('img', { name: /^Cost chart/ })).toBeNull();
    expect(screen.getByRole('table', { name: 'Cost by channel' })).toBeTruthy();
  });
});
