import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Page, type Route, expect, test } from '@playwright/test';
import { confirmModal, registerUser, signInAs } from './support/fixtures.ts';

/**
 * Call recordings failure texts (spec §8.3, §2.12) as a NORMAL user in Chromium. Failures come from real
 * server state wherever the server can produce them (refused uploads, no speech-to-text configured,
 * a recording deleted meanwhile, media the browser cannot decode, another user's recording); page.route
 * stands in only for what a proxy or a flaky network does (an HTML 502 page, a dropped connection, a
 * transient 503 mid-stream), answering in the server's own wire format `{ error, code }` where it has one.
 */
const fixtures = path.resolve('apps/server/src/test/fixtures');
const toneWav = readFileSync(path.join(fixtures, 'tone-2s.wav'));
const toneMp3 = readFileSync(path.join(fixtures, 'tone-3s.mp3'));

type Upload = { name: string; mimeType: string; buffer: Buffer };

/** The 8-bit PCM samples of the committed WAV fixture (8 kHz mono, unsigned). */
function fixturePcm(): Buffer {
  const at = toneWav.indexOf('data');
  return toneWav.subarray(at + 8, at + 8 + toneWav.readUInt32LE(at + 4));
}

/** A RIFF/WAVE header followed by its chunks. */
function riffWave(chunks: Buffer[]): Buffer {
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(4 + body.length, 4);
  head.write('WAVE', 8, 'ascii');
  return Buffer.concat([head, body]);
}

function chunk(id: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A PCM WAV of a 440 Hz tone, 16-bit stereo 44.1 kHz: big enough that the player does not buffer it whole. */
function cdQualityWav(seconds: number): Buffer {
  const rate = 44100;
  const frames = rate * seconds;
  const pcm = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000);
    pcm.writeInt16LE(v, i * 4);
    pcm.writeInt16LE(v, i * 4 + 2);
  }
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0); // PCM
  fmt.writeUInt16LE(2, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE(rate * 4, 8);
  fmt.writeUInt16LE(4, 12);
  fmt.writeUInt16LE(16, 14);
  return riffWave([chunk('fmt ', fmt), chunk('data', pcm)]);
}

/**
 * The fixture's 2 s as IMA ADPCM in a WAV container (format tag 0x11, as old voice recorders write):
 * a real, parseable recording whose codec Chromium does not decode although it plays audio/wav.
 */
function imaAdpcmWav(): Buffer {
  const samples = fixturePcm().length;
  const samplesPerBlock = 505;
  const blockAlign = 256;
  const blocks = Math.ceil(samples / samplesPerBlock);
  const fmt = Buffer.alloc(20);
  fmt.writeUInt16LE(0x11, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(Math.round((8000 * blockAlign) / samplesPerBlock), 8);
  fmt.writeUInt16LE(blockAlign, 12);
  fmt.writeUInt16LE(4, 14);
  fmt.writeUInt16LE(2, 16); // cbSize
  fmt.writeUInt16LE(samplesPerBlock, 18);
  const fact = Buffer.alloc(4);
  fact.writeUInt32LE(samples, 0);
  // Each block: predictor 0, step index 0, then zero nibbles (silence).
  return riffWave([chunk('fmt ', fmt), chunk('fact', fact), chunk('data', Buffer.alloc(blocks * blockAlign))]);
}

/** The fixture's 2 s as AIFF (big-endian container, signed 8-bit samples): a format Chromium does not play. */
function aiff(): Buffer {
  const pcm = Buffer.from(fixturePcm().map((b) => b ^ 0x80));
  const comm = Buffer.alloc(18);
  comm.writeUInt16BE(1, 0); // channels
  comm.writeUInt32BE(pcm.length, 2); // sample frames
  comm.writeUInt16BE(8, 6); // bits
  Buffer.from([0x40, 0x0b, 0xfa, 0, 0, 0, 0, 0, 0, 0]).copy(comm, 8); // 8000 Hz, 80-bit extended
  const ssnd = Buffer.concat([Buffer.alloc(8), pcm]); // offset 0, block size 0
  const part = (id: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'ascii');
    head.writeUInt32BE(data.length, 4);
    return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const body = Buffer.concat([Buffer.from('AIFF', 'ascii'), part('COMM', comm), part('SSND', ssnd)]);
  const head = Buffer.alloc(8);
  head.write('FORM', 0, 'ascii');
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** Uploads through the real API with the page's session; answers the new recording's id. */
async function seedRecording(page: Page, file: Upload): Promise<number> {
  const res = await page.request.post('/api/call-recording/upload', { multipart: { files: file } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).recordings[0].id as number;
}

/** Native alert()/confirm() texts, accepted as they come. */
function collectDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (dialog) => {
    seen.push(dialog.message());
    void dialog.accept();
  });
  return seen;
}

async function newUserOnStatistics(page: Page, request: Parameters<typeof registerUser>[0]) {
  const user = await registerUser(request);
  await signInAs(page, user.email, user.password);
  return user;
}

const openStatistics = async (page: Page) => {
  await page.goto('/call-recordings/statistics');
  await expect(page.getByRole('heading', { name: 'Call Recording Statistics' })).toBeVisible();
};

/** The text of the upload page's error alert (without its title). */
const uploadError = (page: Page) => page.getByTestId('upload-error').locator('.mantine-Alert-message');
const row = (page: Page, id: number) => page.getByTestId(`recording-row-${id}`);
const player = (page: Page) => page.getByTestId('recording-player');
const audioState = (page: Page) =>
  page.locator('audio').evaluate((a: HTMLAudioElement) => ({ readyState: a.readyState, error: a.error?.code ?? null, time: a.currentTime }));

test.describe('upload failures', () => {
  test.beforeEach(async ({ page, request }) => {
    await newUserOnStatistics(page, request);
    await page.goto('/call-recordings/upload');
    await expect(page.getByRole('heading', { name: 'Upload Recordings' })).toBeVisible();
  });

  const upload = async (page: Page, files: Upload[]) => {
    await page.locator('input[type=file]').setInputFiles(files);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
  };

  test("the server's error text is shown when it refuses the files", async ({ page }) => {
    // The browser sees audio/mpeg, so the page's own filter keeps it; the server reads the bytes and refuses.
    const responses: number[] = [];
    page.on('response', (r) => r.url().endsWith('/api/call-recording/upload') && responses.push(r.status()));
    await upload(page, [{ name: 'notes.mp3', mimeType: 'audio/mpeg', buffer: Buffer.from('these are my call notes, not audio') }]);
    await expect(uploadError(page)).toHaveText('Only audio and video files are allowed.');
    expect(responses).toEqual([400]);
    await expect(page.getByTestId('upload-progress-text')).toHaveCount(0);

    // An MP3 whose ID3 tag is followed by garbage: the server names the file it could not read.
    const broken = Buffer.concat([Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000', 'latin1'), Buffer.alloc(2000, 0x55)]);
    await page.getByRole('button', { name: 'Remove notes.mp3' }).click();
    await upload(page, [{ name: 'broken.mp3', mimeType: 'audio/mpeg', buffer: broken }]);
    await expect(uploadError(page)).toHaveText('The file "broken.mp3" could not be read as audio or video.');
    expect(responses).toEqual([400, 400]);
    // Nothing was stored.
    const list = await page.request.get('/api/call-recording/list');
    expect((await list.json()).recordings).toEqual([]);
    await page.screenshot({ path: '/tmp/recfail-upload-server-error.png', fullPage: true });
  });

  test("'Failed to upload files' when the answer has no readable error (proxy HTML page, dropped connection)", async ({ page }) => {
    // A reverse proxy in front of the app answering 502 with its own HTML page.
    await page.route('**/api/call-recording/upload', (route) =>
      route.fulfill({
        status: 502,
        contentType: 'text/html',
        body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      }),
    );
    await upload(page, [{ name: 'call.mp3', mimeType: 'audio/mpeg', buffer: toneMp3 }]);
    await expect(uploadError(page)).toHaveText('Failed to upload files');
    await expect(page.getByText('Bad Gateway')).toHaveCount(0);
    // The file stays selected so the user can try again.
    await expect(page.getByRole('table', { name: 'Selected files' })).toContainText('call.mp3');

    // The connection drops during the upload.
    await page.unroute('**/api/call-recording/upload');
    await page.route('**/api/call-recording/upload', (route) => route.abort('connectionreset'));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(uploadError(page)).toHaveText('Failed to upload files');

    // Back to the real server: the same selection uploads.
    await page.unroute('**/api/call-recording/upload');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page.getByText('1 recording was uploaded.')).toBeVisible();
    await expect(page.getByTestId('upload-error')).toHaveCount(0);
  });
});

test('transcript generation without a speech-to-text provider: the button is disabled with the reason; a 503 anyway gives the alert and the reason', async ({ page, request }) => {
  await newUserOnStatistics(page, request);
  const dialogs = collectDialogs(page);
  const id = await seedRecording(page, { name: 'call.mp3', mimeType: 'audio/mpeg', buffer: toneMp3 });
  // A team member is told to ask their admin, never what to set on the server (issue 24).
  const reason = 'Transcription is not set up on this server yet. Ask your admin.';
  // Honest action (issue 12): the server says no provider is configured, so the button cannot work.
  await openStatistics(page);
  await expect(row(page, id).getByRole('button', { name: 'Generate Transcript' })).toBeDisabled();
  await expect(page.getByTestId('transcription-off')).toContainText(reason);

  // A page that still believed a provider was there (e.g. it was removed since): the spec's alert (§8.3) and
  // the server's 503 reason as a notification.
  await page.route('**/api/call-recording/transcription', (route) => route.fulfill({ json: { available: true, reason: null } }));
  await openStatistics(page);
  const answer = page.waitForResponse((r) => r.url().endsWith(`/api/call-recording/${id}/transcript`) && r.request().method() === 'POST');
  await row(page, id).getByRole('button', { name: 'Generate Transcript' }).click();
  const response = await answer;
  expect(response.status()).toBe(503);
  expect(await response.json()).toMatchObject({ code: 'TRANSCRIPTION_NOT_CONFIGURED' });
  await expect.poll(() => dialogs).toEqual(['Failed to generate transcript. Please try again.']);
  await expect(page.getByText(reason).first()).toBeVisible();
  // Still no transcript, and the action is offered again.
  await expect(row(page, id)).toContainText('None');
  await expect(row(page, id).getByRole('button', { name: 'Generate Transcript' })).toBeEnabled();
});

test('deleting a recording that is already gone (deleted in another tab): alert', async ({ page, request }) => {
  await newUserOnStatistics(page, request);
  const dialogs = collectDialogs(page);
  const id = await seedRecording(page, { name: 'call.mp3', mimeType: 'audio/mpeg', buffer: toneMp3 });
  await openStatistics(page);
  await expect(row(page, id)).toBeVisible();
  // Another tab of the same user deletes it first.
  expect((await page.request.delete(`/api/call-recording/${id}`)).status()).toBe(200);

  const answer = page.waitForResponse((r) => r.url().endsWith(`/api/call-recording/${id}`) && r.request().method() === 'DELETE');
  await row(page, id).getByRole('button', { name: 'Delete' }).click();
  await confirmModal(page, 'This action cannot be undone');
  expect((await answer).status()).toBe(404);
  await expect.poll(() => dialogs).toEqual(['Failed to delete the recording. Please try again.']);
  await expect(page.getByText('Recording deleted.')).toHaveCount(0);
  await expect(row(page, id).getByRole('button', { name: 'Delete' })).toBeEnabled();
});

/** A 206 answer with only the first megabyte of the real stream, so the browser has to ask for the rest. */
async function firstMegabyte(route: Route) {
  const full = await route.fetch();
  const body = await full.body();
  const part = body.subarray(0, 1 << 20);
  return {
    status: 206,
    headers: { ...full.headers(), 'content-range': `bytes 0-${part.length - 1}/${body.length}`, 'content-length': String(part.length) },
    body: part,
  };
}

test.describe('player failures', () => {
  const UNSUPPORTED = 'This audio format is not supported by your browser. Please download the file to play it.';

  test.beforeEach(async ({ page, request }) => {
    await newUserOnStatistics(page, request);
  });

  test('an AIFF recording (Chromium cannot play audio/aiff): unsupported text with a working Download', async ({ page }) => {
    const id = await seedRecording(page, { name: 'office.aiff', mimeType: 'audio/aiff', buffer: aiff() });
    await openStatistics(page);
    await expect(row(page, id)).toContainText('2s');
    await row(page, id).getByRole('button', { name: 'Play' }).click();
    const alert = player(page).getByRole('alert');
    await expect(alert.getByText(UNSUPPORTED, { exact: true })).toBeVisible();
    await expect(player(page).getByRole('button', { name: 'Play audio' })).toHaveCount(0);
    const download = alert.getByRole('link', { name: 'Download' });
    const href = (await download.getAttribute('href'))!;
    expect(href).toBe(`/api/call-recording/${id}/download`);
    const file = await page.request.get(href);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-disposition']).toContain('attachment; filename="office.aiff"');
    expect(Buffer.from(await file.body()).equals(aiff())).toBe(true);
    await page.screenshot({ path: '/tmp/recfail-unsupported.png', fullPage: true });
  });

  test('a WAV in IMA ADPCM (audio/wav is playable, this codec is not): the media error gives the unsupported text', async ({ page }) => {
    const id = await seedRecording(page, { name: 'dictaphone.wav', mimeType: 'audio/wav', buffer: imaAdpcmWav() });
    await openStatistics(page);
    await expect(row(page, id)).toContainText('2s');
    await row(page, id).getByRole('button', { name: 'Play' }).click();
    // The browser claims it can play audio/wav, so the player first offers Play…
    expect(await page.locator('audio').evaluate((a: HTMLAudioElement) => a.canPlayType('audio/wav'))).not.toBe('');
    // …then the element fails with MEDIA_ERR_SRC_NOT_SUPPORTED once it has read the stream.
    await expect(player(page).getByRole('alert').getByText(UNSUPPORTED, { exact: true })).toBeVisible();
    expect((await audioState(page)).error).toBe(4);
    await expect(player(page).getByRole('link', { name: 'Download' })).toHaveAttribute('href', `/api/call-recording/${id}/download`);
  });

  test("'Failed to load audio: ' when the recording is deleted while it is open; Retry and Download offered", async ({ page }) => {
    const id = await seedRecording(page, { name: 'long call.wav', mimeType: 'audio/wav', buffer: cdQualityWav(30) });
    // Play in the table starts playback at once (issue 24). The browser gets only the first megabyte, so it asks
    // for the rest with a range request — held until the recording is deleted (another tab), then a real 404.
    let deleted!: () => void;
    const deletion = new Promise<void>((resolve) => (deleted = resolve));
    await page.route(`**/api/call-recording/${id}/stream`, async (route) => {
      if (route.request().headers()['range'] !== 'bytes=0-') {
        await deletion;
        return route.continue();
      }
      await route.fulfill(await firstMegabyte(route));
    });
    await openStatistics(page);
    await row(page, id).getByRole('button', { name: 'Play' }).click();
    await expect.poll(async () => (await audioState(page)).readyState).toBeGreaterThanOrEqual(1);
    await expect(page.getByTestId('player-time')).toHaveText(/^0:0\d \/ 0:30$/);
    expect((await page.request.delete(`/api/call-recording/${id}`)).status()).toBe(200);
    deleted();
    const alert = player(page).getByRole('alert');
    await expect(alert).toContainText(/^Failed to load audio: \S.*/);
    expect((await audioState(page)).error).toBe(2); // MEDIA_ERR_NETWORK
    await expect(alert.getByRole('button', { name: 'Retry' })).toBeVisible();
    await expect(alert.getByRole('link', { name: 'Download' })).toHaveAttribute('href', `/api/call-recording/${id}/download`);
    await page.screenshot({ path: '/tmp/recfail-load-error.png', fullPage: true });
  });

  test("'Failed to load audio: ' after a transient 503 mid-stream; Retry reloads and plays", async ({ page }) => {
    const id = await seedRecording(page, { name: 'long call.wav', mimeType: 'audio/wav', buffer: cdQualityWav(30) });
    // The first request (from byte 0) gets the first megabyte of the real answer, so the browser must come back
    // for the rest (Play in the table plays at once); those range requests meet a 503 in the server's wire format.
    const stream = `**/api/call-recording/${id}/stream`;
    await page.route(stream, async (route) =>
      route.request().headers()['range'] === 'bytes=0-'
        ? route.fulfill(await firstMegabyte(route))
        : route.fulfill({ status: 503, json: { error: 'Service temporarily unavailable.', code: 'UNAVAILABLE' } }),
    );
    await openStatistics(page);
    await row(page, id).getByRole('button', { name: 'Play' }).click();
    const alert = player(page).getByRole('alert');
    await expect(alert).toContainText(/^Failed to load audio: \S.*/);
    const reason = (await alert.locator('p').first().innerText()).replace('Failed to load audio: ', '');
    expect(reason.length).toBeGreaterThan(0);

    await page.unroute(stream);
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect(player(page).getByRole('alert')).toHaveCount(0);
    await expect.poll(async () => (await audioState(page)).readyState).toBeGreaterThanOrEqual(1);
    await player(page).getByRole('button', { name: 'Play audio' }).click();
    await expect.poll(async () => (await audioState(page)).time, { timeout: 15_000 }).toBeGreaterThan(0.3);
    await expect(player(page).getByRole('alert')).toHaveCount(0);
  });

  test("'Playback error: ' when Play is cancelled by Pause before a slow stream can start", async ({ page, context }) => {
    const id = await seedRecording(page, { name: 'call.mp3', mimeType: 'audio/mpeg', buffer: toneMp3 });
    await openStatistics(page);
    // A slow connection: every request takes seconds to answer, so Play is still waiting for data.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 4000, downloadThroughput: -1, uploadThroughput: -1 });
    // Play in the table starts playback at once (issue 24); the person pauses before any data came.
    await row(page, id).getByRole('button', { name: 'Play' }).click();
    expect((await audioState(page)).readyState).toBe(0);
    await player(page).getByRole('button', { name: 'Pause' }).click();
    const alert = player(page).getByRole('alert');
    await expect(alert).toContainText('Playback error: The play() request was interrupted by a call to pause().');
    expect((await audioState(page)).error).toBeNull();
    await expect(alert.getByRole('button', { name: 'Retry' })).toHaveCount(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.screenshot({ path: '/tmp/recfail-playback-error.png', fullPage: true });
  });
});

test.describe('transcript page', () => {
  // The second E2E server has a loopback fake speech-to-text, so the other user's recording really has a transcript.
  test.use({ baseURL: `http://localhost:${Number(process.env.E2E_PORT ?? 3100) + 50}` });

  test("another user's transcript: load failure text with a back link (real 404)", async ({ page, request, playwright, baseURL }) => {
    const owner = await playwright.request.newContext({ baseURL });
    try {
      await registerUser(owner);
      const up = await owner.post('/api/call-recording/upload', { multipart: { files: { name: 'theirs.mp3', mimeType: 'audio/mpeg', buffer: toneMp3 } } });
      expect(up.status()).toBe(201);
      const id = (await up.json()).recordings[0].id as number;
      expect((await owner.post(`/api/call-recording/${id}/transcript`)).status()).toBe(200);
      expect((await owner.get(`/api/call-recording/${id}/transcript`)).status()).toBe(200);

      await newUserOnStatistics(page, request);
      const answer = page.waitForResponse((r) => r.url().endsWith(`/api/call-recording/${id}/transcript`));
      await page.goto(`/call-recordings/${id}/transcript`);
      expect((await answer).status()).toBe(404);
      await expect(page.getByTestId('transcript-error')).toHaveText(
        'Failed to load transcript. It may not exist or you may not have permission to view it.',
      );
      await expect(page.getByText('Agent:')).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Copy to Clipboard' })).toHaveCount(0);
      await page.screenshot({ path: '/tmp/recfail-transcript-404.png', fullPage: true });
      await page.getByRole('link', { name: '← Back to statistics' }).click();
      await expect(page.getByRole('heading', { name: 'Call Recording Statistics' })).toBeVisible();
      await expect(page).toHaveURL(/\/call-recordings\/statistics$/);
    } finally {
      await owner.dispose();
    }
  });
});
