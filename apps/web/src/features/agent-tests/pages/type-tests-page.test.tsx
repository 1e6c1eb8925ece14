import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { findToast, renderApp } from '../../../test/render-app.tsx';
import { json } from '../../../test/stub-fetch.ts';
import TypeTestsPage from './type-tests-page.tsx';

/** The tests screen of a type (issue 25): write a scenario, watch a run finish, compare two versions. */
const NEVER_SAYS = { kind: 'neverSays', text: 'discount' };
const failingRun = {
  scenario: 'No discounts',
  passed: false,
  criteria: [
    { criterion: { kind: 'ended' }, passed: true, reason: 'The conversation ended.' },
    { criterion: NEVER_SAYS, passed: false, reason: 'The agent said "discount".' },
  ],
  transcript: [
    { role: 'PROSPECT', text: 'Hi, I want panels', phase: 0 },
    { role: 'AGENT', text: 'A 20% discount today!', phase: 1 },
  ],
  turns: 1,
  outcome: 'ended',
  tokens: { prompt: 10, completion: 5 },
  costUsd: 0,
  error: null,
};
const report = {
  version: 'draft',
  runs: 1,
  passedRuns: 0,
  passRate: 0,
  minPassRate: null,
  passed: false,
  scenarios: [{ name: 'No discounts', passed: false, passRate: 0, criteria: [{ criterion: { kind: 'ended' }, passRate: 1 }, { criterion: NEVER_SAYS, passRate: 0 }], runs: [failingRun] }],
  tokens: { prompt: 10, completion: 5 },
  costUsd: 0,
  durationMs: 1200,
};
const summary = (id: number, version: string, passRate: number) => ({ id, version, status: 'done', total: 1, finished: 1, passRate, createdAt: new Date().toISOString() });

/** A stateful fake of the type's tests API: scenarios saved stay, a run is running until `finishRun()`. */
function server() {
  const scenarios: object[] = [];
  let runDone = false;
  const calls: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method, url, body });
      const base = '/api/admin/conversation-type/7';
      if (url.startsWith(`${base}/scenarios`) && method === 'POST') {
        const saved = { id: scenarios.length + 1, ...body };
        scenarios.push(saved);
        return json(saved);
      }
      if (url.startsWith(`${base}/scenarios`)) return json(scenarios);
      if (url.startsWith(`${base}/versions/diff`)) return json({ prompts: [], phases: [], config: [], knowledge: { added: [], removed: [] } });
      if (url.startsWith(`${base}/versions`)) return json({ current: 1, versions: [{ version: 1, note: 'first', createdAt: new Date().toISOString(), createdBy: null }] });
      if (url.startsWith(`${base}/publish-status`)) return json({ requiredPassRate: 0.8, lastRun: runDone ? { id: 5, passRate: 0 } : null, allowed: false });
      if (url.startsWith(`${base}/test-runs`) && method === 'POST') return json({ id: 5 }, 202);
      if (url.startsWith(`${base}/test-comparisons`)) return json({ a: 6, b: 5 }, 202);
      if (url.startsWith('/api/admin/test-run/6/compare/5')) {
        return json({
          conversationTypeId: 7,
          a: summary(6, '1', 1),
          b: summary(5, 'draft', 0),
          done: true,
          scenarios: [
            {
              name: 'No discounts',
              a: { passRate: 1, passed: true, runs: 1 },
              b: { passRate: 0, passed: false, runs: 1 },
              criteria: [
                { criterion: { kind: 'ended' }, a: 1, b: 1 },
                { criterion: NEVER_SAYS, a: 1, b: 0 },
              ],
            },
          ],
        });
      }
      if (url.startsWith('/api/admin/test-run/5')) {
        return json(runDone ? { ...summary(5, 'draft', 0), conversationTypeId: 7, report } : { ...summary(5, 'draft', 0), status: 'running', finished: 0, passRate: null, conversationTypeId: 7, report: null });
      }
      return json({});
    }),
  );
  return { calls, finishRun: () => (runDone = true) };
}

const renderPage = () =>
  renderApp(
    <Routes>
      <Route path="/admin/conversation-type/:id/tests" element={<TypeTestsPage />} />
    </Routes>,
    { route: '/admin/conversation-type/7/tests' },
  );

describe('TypeTestsPage', () => {
  it('saves a written scenario, shows a run in progress, then its report with the failing criterion highlighted', async () => {
    const { calls, finishRun } = server();
    renderPage();
    expect(await screen.findByText('No scenarios yet.')).toBeTruthy();
    fireEvent.change(screen.getByRole('textbox', { name: 'Scenario name' }), { target: { value: 'No discounts' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Opening message' }), { target: { value: 'Hi, I want panels' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Scripted prospect messages (one per line)' }), { target: { value: 'Sounds good\n\nBook me' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Criteria (JSON)' }), { target: { value: JSON.stringify([{ kind: 'ended' }, NEVER_SAYS]) } });
    fireEvent.click(screen.getByRole('button', { name: 'Save scenario' }));
    await findToast('Scenario saved');
    expect(calls.find((c) => c.method === 'POST' && c.url.endsWith('/scenarios'))?.body).toEqual({
      name: 'No discounts',
      opening: 'Hi, I want panels',
      messages: ['Sounds good', 'Book me'],
      criteria: [{ kind: 'ended' }, NEVER_SAYS],
    });
    expect(await screen.findByRole('cell', { name: 'ended, neverSays' })).toBeTruthy();
    expect((screen.getByRole('textbox', { name: 'Scenario name' }) as HTMLInputElement).value).toBe('');

    fireEvent.click(screen.getByRole('button', { name: 'Run scenarios' }));
    const progress = await screen.findByText('Running: 0 / 1 runs finished');
    expect(calls.find((c) => c.method === 'POST' && c.url.endsWith('/test-runs'))?.body).toEqual({ version: 'draft', runs: 1 });
    finishRun();
    const reportView = progress.closest('[aria-label="Test run report"]') as HTMLElement;
    expect(await within(reportView).findByText('Failed', {}, { timeout: 3000 })).toBeTruthy();
    const failing = reportView.querySelectorAll('[data-failing="true"]');
    expect(failing).toHaveLength(1);
    expect(failing[0].textContent).toContain('neverSays (text="discount") — The agent said "discount".');
    expect(within(reportView).getByText('A 20% discount today!')).toBeTruthy();
    // The publish part shows the finished run's result for this draft; below the required rate, no publishing.
    await waitFor(() =>
      expect(screen.getByLabelText('Publish status').textContent).toBe('Publishing requires a pass rate of 80 % on the draft; last run on this draft as it is now: 0 % (run #5).'),
    );
    expect(screen.getByRole('button', { name: 'Publish draft' })).toHaveProperty('disabled', true);
  }, 30_000);

  it('compares two versions side by side and opens a side’s transcripts', async () => {
    const { calls, finishRun } = server();
    finishRun();
    renderPage();
    expect(await screen.findByText('New conversations start on version 1.')).toBeTruthy();
    const picker = screen.getByLabelText('Version A', { selector: 'input' });
    fireEvent.click(picker);
    const listbox = await waitFor(() => document.getElementById(picker.getAttribute('aria-controls') ?? '')!);
    fireEvent.click(within(listbox).getByRole('option', { name: 'Version 1', hidden: true }));
    fireEvent.click(screen.getByRole('button', { name: 'Run both and compare' }));
    const comparison = await screen.findByLabelText('Version comparison');
    expect(calls.find((c) => c.url.endsWith('/test-comparisons'))?.body).toEqual({ a: 1, b: 'draft', runs: 1 });
    const row = within(comparison).getByRole('row', { name: /neverSays/ });
    expect(within(row).getAllByRole('cell').map((c) => [c.textContent, c.getAttribute('data-changed')])).toEqual([
      ['neverSays (text="discount")', null],
      ['100 %', 'true'],
      ['0 %', 'true'],
    ]);
    expect(within(within(comparison).getByRole('row', { name: /^ended/ })).getAllByRole('cell').map((c) => c.textContent)).toEqual(['ended', '100 %', '100 %']);
    fireEvent.click(within(comparison).getByRole('button', { name: 'Show transcripts of B (the draft)' }));
    expect(await within(comparison).findByText('A 20% discount today!')).toBeTruthy();
  }, 30_000);
});
