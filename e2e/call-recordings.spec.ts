import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { confirmModal, registerUser, signInAs } from './support/fixtures.ts';
import { DESKTOP, PHONE } from './support/viewport.ts';
import { expectNoSeriousAxe } from './support/workspace.ts';

/**
 * Call recordings as a NORMAL user (spec §2.12): upload with progress, statistics, player, transcript
 * (against the loopback fake speech-to-text of the second E2E server), transcript page and delete.
 */
const FAKE_STT_PORT = Number(process.env.E2E_PORT ?? 3100) + 50;
test.use({ baseURL: `http://localhost:${FAKE_STT_PORT}` });

const fixtures = path.resolve('apps/server/src/test/fixtures');
const file = (name: string, mimeType: string, as = name) => ({ name: as, mimeType, buffer: readFileSync(path.join(fixtures, name)) });

const localDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

test('upload, statistics, play and seek, transcript, delete', async ({ page, request, context }) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const user = await registerUser(request);
  await signInAs(page, user.email, user.password);
  await page.goto('/');
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });

  // Upload page
  await page.getByRole('button', { name: 'Call Recordings' }).click();
  await page.getByRole('menuitem', { name: 'Upload Recordings' }).click();
  await expect(page.getByRole('heading', { name: 'Upload Recordings' })).toBeVisible();
  await expect(page.getByTestId('supported-formats')).toHaveText('Supported formats: MP3, WAV, MP4');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByTestId('upload-error')).toContainText('Please select at least one file to upload');

  const input = page.locator('input[type=file]');
  await input.setInputFiles([
    file('tone-3s.mp3', 'audio/mpeg', 'sales call.mp3'),
    file('tone-2s.wav', 'audio/wav', 'follow-up.wav'),
    file('tone-4s.mp4', 'video/mp4', 'demo.mp4'),
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not audio') },
  ]);
  await expect(page.getByTestId('upload-error')).toContainText('Some files were rejected. Only audio and video files are allowed.');
  const selected = page.getByRole('table', { name: 'Selected files' });
  await expect(selected.getByRole('row')).toHaveCount(4); // header + 3
  await expect(selected).toContainText('sales call.mp3');
  await expect(selected).toContainText('6.3 KB');
  await expect(selected).not.toContainText('notes.txt');
  // Remove works: add one more and take it away again.
  await input.setInputFiles([file('tone-2s.wav', 'audio/wav', 'extra.wav')]);
  await expect(selected.getByRole('row')).toHaveCount(5);
  await page.getByRole('button', { name: 'Remove extra.wav' }).click();
  await expect(selected.getByRole('row')).toHaveCount(4);

  // Slow the upload down so the progress bar is seen moving (bytes per second, DevTools network emulation).
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 12 * 1024 });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const progress = page.getByRole('progressbar', { name: 'Upload progress' });
  await expect(progress).toBeVisible();
  await page.screenshot({ path: '/tmp/recordings-upload-progress.png' });
  await expect(page.getByTestId('upload-progress-text')).toHaveText('Upload complete: 100%', { timeout: 30_000 });
  await expect(progress).toHaveAttribute('aria-valuenow', '100');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(page.getByText('3 recordings were uploaded.')).toBeVisible();
  await expect(selected).toHaveCount(0);
  await page.screenshot({ path: '/tmp/recordings-upload.png', fullPage: true });

  // Statistics agree with the uploads: 3 + 2 + 4 seconds.
  await page.getByRole('link', { name: 'See statistics' }).click();
  await expect(page.getByRole('heading', { name: 'Call Recording Statistics' })).toBeVisible();
  await expect(page.getByTestId('stat-total-calls')).toContainText('3');
  await expect(page.getByTestId('stat-total-duration')).toContainText('9s');
  await expect(page.getByTestId('stat-average-duration')).toContainText('3s');
  await expect(page.getByTestId('stat-calls-this-month')).toContainText('3');
  const top = page.getByRole('table', { name: 'Top users' });
  await expect(top.getByRole('row')).toHaveCount(2);
  await expect(top.getByRole('row').nth(1)).toHaveText([user.email, '3', '9s', '3s'].join(''));
  const table = page.getByRole('table', { name: 'Recordings' });
  await expect(table.getByRole('row')).toHaveCount(4);
  for (const duration of ['2s', '3s', '4s']) await expect(table.getByRole('row').filter({ hasText: duration })).toHaveCount(1);
  await expect(table.getByRole('row').filter({ hasText: user.email })).toHaveCount(3);
  await expect(page.locator('.recharts-surface').first()).toBeVisible();
  const wavRow = table.getByRole('row').filter({ hasText: '2s' });
  const mp3Row = table.getByRole('row').filter({ hasText: '3s' });

  // Play and seek the WAV (2 s).
  await wavRow.getByRole('button', { name: 'Play' }).click();
  await expect(wavRow.getByRole('button', { name: 'Hide Player' })).toBeVisible();
  const player = page.getByTestId('recording-player');
  await expect(player).toContainText('follow-up.wav');
  await expect(page.getByTestId('player-time')).toHaveText('0:00 / 0:02');
  await player.getByRole('button', { name: 'Play audio' }).click();
  await expect(player.getByRole('button', { name: 'Pause' })).toBeVisible();
  await expect.poll(() => page.locator('audio').evaluate((a: HTMLAudioElement) => a.currentTime)).toBeGreaterThan(0.2);
  await player.getByRole('button', { name: 'Pause' }).click();
  const track = player.locator('.mantine-Slider-root');
  const box = (await track.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.75, box.y + box.height / 2);
  await expect.poll(() => page.locator('audio').evaluate((a: HTMLAudioElement) => a.currentTime)).toBeGreaterThan(1.2);
  await expect(page.getByTestId('player-time')).toHaveText('0:01 / 0:02');
  await page.screenshot({ path: '/tmp/recordings-statistics.png', fullPage: true });
  await wavRow.getByRole('button', { name: 'Hide Player' }).click();
  await expect(player).toHaveCount(0);

  // Generate a transcript for the MP3 through the fake speech-to-text service.
  await mp3Row.getByRole('button', { name: 'Generate Transcript' }).click();
  await expect.poll(() => dialogs).toContain('Transcript generated successfully!');
  await expect(mp3Row).toContainText('Available');
  await mp3Row.getByRole('button', { name: 'Play' }).click();
  await expect(page.getByTestId('player-transcript')).toContainText('Prospect: Sure, tell me more about the offer.');

  // Transcript page
  await mp3Row.getByRole('link', { name: 'View Transcript' }).click();
  await expect(page.getByRole('heading', { name: 'Transcript' })).toBeVisible();
  const main = page.getByRole('main');
  await expect(main.getByText(user.email)).toBeVisible();
  await expect(main.getByText('MP3', { exact: true })).toBeVisible();
  await expect(main.getByText('3s', { exact: true })).toBeVisible();
  const lines = page.getByTestId('transcript-lines');
  await expect(lines.locator('p')).toHaveCount(3);
  await expect(lines).toContainText('Agent: Hello, thanks for taking my call.');
  const download = page.getByRole('link', { name: 'Download Recording' });
  const downloaded = await page.request.get((await download.getAttribute('href'))!);
  expect(downloaded.status()).toBe(200);
  expect(downloaded.headers()['content-disposition']).toContain('attachment; filename="sales call.mp3"');
  await page.getByRole('button', { name: 'Copy to Clipboard' }).click();
  await expect(page.getByText('Transcript copied to clipboard')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('Prospect: Sure, tell me more about the offer.');
  await page.screenshot({ path: '/tmp/recordings-transcript.png', fullPage: true });
  await page.getByRole('link', { name: '← Back to statistics' }).click();
  await expect(page.getByRole('heading', { name: 'Call Recording Statistics' })).toBeVisible();

  // Date filters: a start tomorrow hides everything; today as the end day keeps all (inclusive to 23:59:59.999).
  const today = new Date();
  const tomorrow = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
  await page.getByLabel('Start date').fill(localDay(tomorrow));
  await expect(page.getByTestId('stat-total-calls')).toContainText('0');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(page.getByTestId('stat-total-calls')).toContainText('3');
  await page.getByLabel('Start date').fill(localDay(today));
  await page.getByLabel('End date').fill(localDay(today));
  await expect(page.getByTestId('stat-total-calls')).toContainText('3');
  await page.getByRole('button', { name: 'Reset' }).click();

  // Delete with confirmation.
  await table.getByRole('row').filter({ hasText: '2s' }).getByRole('button', { name: 'Delete' }).click();
  await confirmModal(page, 'This action cannot be undone');
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(page.getByTestId('stat-total-calls')).toContainText('2');
  await expect(page.getByTestId('stat-total-duration')).toContainText('7s');
});

test('a transcript that does not exist shows the load failure with a back link', async ({ page, request }) => {
  const user = await registerUser(request);
  await signInAs(page, user.email, user.password);
  await page.goto('/call-recordings/999999/transcript');
  await expect(page.getByTestId('transcript-error')).toHaveText(
    'Failed to load transcript. It may not exist or you may not have permission to view it.',
  );
  await expect(page.getByRole('link', { name: '← Back to statistics' })).toBeVisible();
});

// Issue 24 item 8: one unreadable file among good ones no longer costs the good ones.
for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
  test(`a mixed upload stores the good files and marks the refused one on its row (${size})`, async ({ page, request }) => {
    const user = await registerUser(request);
    await page.setViewportSize(DESKTOP);
    await signInAs(page, user.email, user.password);
    await page.setViewportSize(viewport);
    await page.goto('/call-recordings/upload');
    await page.locator('input[type=file]').setInputFiles([
      file('tone-3s.mp3', 'audio/mpeg', 'good call.mp3'),
      // Passes the browser's type filter (audio/*), but its bytes are text: the server refuses it.
      { name: 'broken.mp3', mimeType: 'audio/mpeg', buffer: Buffer.from('This is not audio.\n'.repeat(20)) },
      file('tone-2s.wav', 'audio/wav', 'good follow-up.wav'),
    ]);
    const selected = page.getByRole('table', { name: 'Selected files' });
    await expect(selected.getByRole('row')).toHaveCount(4);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();

    const row = (name: string) => selected.getByRole('row').filter({ hasText: name });
    await expect(row('broken.mp3')).toContainText('Not uploaded: Only audio and video files are allowed.');
    await expect(row('good call.mp3')).toContainText('Uploaded');
    await expect(row('good call.mp3')).not.toContainText('Not uploaded');
    await expect(row('good follow-up.wav')).toContainText('Uploaded');
    await expect(page.getByTestId('upload-error')).toContainText('1 file was not uploaded. The reason is shown next to it.');
    await expect(page.getByText('2 recordings were uploaded.')).toBeVisible();
    await expectNoSeriousAxe(page);

    const list = await page.request.get('/api/call-recording/list');
    const names = (await list.json()).recordings.map((r: { originalName: string }) => r.originalName).sort();
    expect(names).toEqual(['good call.mp3', 'good follow-up.wav']);
  });
}
