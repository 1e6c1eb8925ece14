import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { fakeTranscriptText, startOpenAiTranscriptionFake } from '../../test/fakes/openai-transcription-fake.ts';
import { multipartPayload, type MultipartFile } from '../../test/multipart.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures');
const MP3 = readFileSync(path.join(fixtures, 'tone-3s.mp3'));
const WAV = readFileSync(path.join(fixtures, 'tone-2s.wav'));
const MP4 = readFileSync(path.join(fixtures, 'tone-4s.mp4'));
const TEXT = Buffer.from('This is a plain text file pretending to be audio.\n'.repeat(20));
// A FLAC preamble (so it passes the type check) whose first metadata block is broken: STREAMINFO must be 34 bytes.
const DAMAGED_FLAC = Buffer.concat([Buffer.from('fLaC'), Buffer.from([0x00, 0x00, 0x00, 0x05]), Buffer.from('broken body '.repeat(40))]);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const FOREIGN = { origin: 'https://evil.example' };

const root = mkdtempSync(path.join(tmpdir(), 'recordings-test-'));
// Nested, so a path escaping two levels up would still land inside `root` where the test can see it.
const storageDir = path.join(root, 'a', 'storage');
// Registered first, so it runs last: after the app has closed its files.
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fake = useFake(() => startOpenAiTranscriptionFake());
const t = useTestApp({
  env: () => ({
    STORAGE_DIR: storageDir,
    OPENAI_API_KEY: fake.apiKey,
    OPENAI_BASE_URL: fake.baseUrl,
    TRANSCRIBE_MODEL: 'whisper-test',
  }),
});
const alice = useUser(t);
const bob = useUser(t);
const admin = useUser(t, 'ADMIN');

const upload = (as: string | undefined, files: MultipartFile[], headers: Record<string, string> = {}, app = t) => {
  const body = multipartPayload(files);
  return app.request({ method: 'POST', url: '/api/call-recording/upload', as, payload: body.payload, headers: { ...body.headers, ...headers } });
};

const uploadOne = async (as: string, file: MultipartFile) => {
  const res = await upload(as, [file]);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().recordings[0] as { id: number; duration: number; fileExtension: string; originalName: string };
};

/** Every file under `dir`, relative to it. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))) : [];

describe('POST /api/call-recording/upload', () => {
  it('stores an MP3, a WAV and an MP4 with the duration read from the media and the type from the bytes', async () => {
    const res = await upload(alice.cookie, [
      { name: 'call one.mp3', type: 'audio/mpeg', data: MP3 },
      { name: 'call-two.wav', type: 'audio/wav', data: WAV },
      // A lying name and type: the bytes say MP4.
      { name: 'video.bin', type: 'application/octet-stream', data: MP4 },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.message).toBe('3 recordings uploaded.');
    expect(body).not.toHaveProperty('refused');
    expect(body.recordings.map((r: { fileExtension: string }) => r.fileExtension)).toEqual(['mp3', 'wav', 'mp4']);
    expect(body.recordings.map((r: { mimeType: string }) => r.mimeType)).toEqual(['audio/mpeg', 'audio/wav', 'video/mp4']);
    const [mp3, wav, mp4] = body.recordings;
    expect(mp3.duration).toBeCloseTo(3, 0);
    expect(wav.duration).toBeCloseTo(2, 1);
    expect(mp4.duration).toBeCloseTo(4, 0);
    expect(mp3).toMatchObject({ userId: alice.id, user: { email: alice.email }, transcript: null, originalName: 'call one.mp3', sizeBytes: MP3.length });
    expect(mp3).not.toHaveProperty('storageKey');
    const stored = filesUnder(storageDir).filter((f) => !f.startsWith('.incoming'));
    expect(stored).toHaveLength(3);
    for (const name of stored) expect(name).toMatch(/^[0-9a-f-]{36}\.(mp3|wav|mp4)$/);
    expect(filesUnder(path.join(storageDir, '.incoming'))).toEqual([]);
  });

  it('stores a file named ../../x.mp3 under a generated key inside STORAGE_DIR only', async () => {
    const before = new Set(filesUnder(root));
    const rec = await uploadOne(alice.cookie, { name: '../../x.mp3', type: 'audio/mpeg', data: MP3 });
    expect(rec.originalName).toBe('x.mp3');
    const added = filesUnder(root).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^a\/storage\/[0-9a-f-]{36}\.mp3$/);
    expect(existsSync(path.join(storageDir, '../../x.mp3'))).toBe(false);
    const download = await t.request({ method: 'GET', url: `/api/call-recording/${rec.id}/download`, as: alice.cookie });
    expect(download.headers['content-disposition']).toBe(`attachment; filename="x.mp3"; filename*=UTF-8''x.mp3`);
  });

  it('refuses a text file with an audio name or Content-Type, and stores nothing of it', async () => {
    const list = async () => (await t.request({ method: 'GET', url: '/api/call-recording/list', as: alice.cookie })).json().recordings.length;
    const countBefore = await list();
    const storedBefore = filesUnder(storageDir).length;
    for (const file of [
      { name: 'x.mp3', type: 'audio/mpeg', data: TEXT },
      { name: 'notes.txt', type: 'video/mp4', data: TEXT },
    ]) {
      const res = await upload(alice.cookie, [file]);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Only audio and video files are allowed.', code: 'NOT_MEDIA' });
    }
    // A wholly bad upload of several files answers the first file's refusal, as before issue 24.
    const allBad = await upload(alice.cookie, [
      { name: 'a.mp3', type: 'audio/mpeg', data: TEXT },
      { name: 'b.wav', type: 'audio/wav', data: TEXT },
    ]);
    expect(allBad.statusCode).toBe(400);
    expect(allBad.json()).toEqual({ error: 'Only audio and video files are allowed.', code: 'NOT_MEDIA' });
    expect(await list()).toBe(countBefore);
    expect(filesUnder(storageDir)).toHaveLength(storedBefore);
  });

  it('stores the readable files of a mixed upload and names the refused one with its reason (issue 24)', async () => {
    const ids = async () =>
      (await t.request({ method: 'GET', url: '/api/call-recording/list', as: alice.cookie })).json().recordings.map((r: { id: number }) => r.id);
    const idsBefore = await ids();
    const storedBefore = new Set(filesUnder(storageDir));
    const res = await upload(alice.cookie, [
      { name: 'good one.mp3', type: 'audio/mpeg', data: MP3 },
      { name: 'damaged.flac', type: 'audio/flac', data: DAMAGED_FLAC },
      { name: 'good two.wav', type: 'audio/wav', data: WAV },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.message).toBe('2 recordings uploaded. 1 file was not uploaded.');
    expect(body.recordings.map((r: { originalName: string }) => r.originalName)).toEqual(['good one.mp3', 'good two.wav']);
    expect(body.refused).toEqual([
      { index: 1, name: 'damaged.flac', code: 'UNREADABLE_MEDIA', reason: 'The file "damaged.flac" could not be read as audio or video.' },
    ]);
    const newIds = body.recordings.map((r: { id: number }) => r.id);
    expect((await ids()).sort()).toEqual([...idsBefore, ...newIds].sort());
    // Exactly the two good files landed, with their own bytes; nothing of the refused one is left anywhere.
    const added = filesUnder(storageDir).filter((f) => !storedBefore.has(f));
    expect(added).toHaveLength(2);
    expect(added.map((f) => sha256(readFileSync(path.join(storageDir, f)))).sort()).toEqual([sha256(MP3), sha256(WAV)].sort());
    expect(filesUnder(path.join(storageDir, '.incoming'))).toEqual([]);

    // A text file among good ones is refused the same way, with the type's reason.
    const withText = await upload(alice.cookie, [
      { name: 'notes.mp3', type: 'audio/mpeg', data: TEXT },
      { name: 'good three.mp4', type: 'video/mp4', data: MP4 },
    ]);
    expect(withText.statusCode, withText.body).toBe(201);
    expect(withText.json().recordings.map((r: { originalName: string }) => r.originalName)).toEqual(['good three.mp4']);
    expect(withText.json().refused).toEqual([{ index: 0, name: 'notes.mp3', code: 'NOT_MEDIA', reason: 'Only audio and video files are allowed.' }]);
  });

  it('answers 400 for no files, a wrong field, a JSON body, malformed JSON and a cut-off multipart body', async () => {
    const none = await upload(alice.cookie, []);
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toBe('Please select at least one file to upload');
    const field = await upload(alice.cookie, [{ name: 'a.mp3', data: MP3, field: 'file' }]);
    expect(field.statusCode).toBe(400);
    expect(field.json().code).toBe('UNEXPECTED_FIELD');
    const json = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: alice.cookie, payload: { files: [] } });
    expect(json.statusCode).toBe(400);
    expect(json.json().code).toBe('NOT_MULTIPART');
    const badJson = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: alice.cookie, json: '{' });
    expect(badJson.statusCode).toBe(400);
    const full = multipartPayload([{ name: 'a.wav', data: WAV }]);
    const cut = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: alice.cookie, payload: full.payload.subarray(0, 500), headers: full.headers });
    expect(cut.statusCode).toBe(400);
    expect(filesUnder(path.join(storageDir, '.incoming'))).toEqual([]);
  });

  it('is 401 anonymous and 403 from a foreign origin', async () => {
    const anon = await upload(undefined, [{ name: 'a.mp3', data: MP3 }]);
    expect(anon.statusCode).toBe(401);
    expect(anon.json().code).toBe('UNAUTHORIZED');
    const foreign = await upload(alice.cookie, [{ name: 'a.mp3', data: MP3 }], FOREIGN);
    expect(foreign.statusCode).toBe(403);
  });
});

describe('GET /api/call-recording/list', () => {
  it('shows a NORMAL user only their own recordings and an ADMIN everyone’s, with the uploader’s email', async () => {
    await uploadOne(bob.cookie, { name: 'bob.wav', data: WAV });
    const mine = (await t.request({ method: 'GET', url: '/api/call-recording/list', as: bob.cookie })).json().recordings;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ user: { email: bob.email }, fileExtension: 'wav' });
    const alices = (await t.request({ method: 'GET', url: '/api/call-recording/list', as: alice.cookie })).json().recordings;
    expect(alices.every((r: { userId: number }) => r.userId === alice.id)).toBe(true);
    const all = (await t.request({ method: 'GET', url: '/api/call-recording/list', as: admin.cookie })).json().recordings;
    expect(all.length).toBe(mine.length + alices.length);
    expect(new Set(all.map((r: { user: { email: string } }) => r.user.email))).toEqual(new Set([alice.email, bob.email]));
  });

  it('filters by an inclusive start and end instant', async () => {
    const now = Date.now();
    const within = await t.request({
      method: 'GET',
      url: `/api/call-recording/list?start=${new Date(now - 3_600_000).toISOString()}&end=${new Date(now + 3_600_000).toISOString()}`,
      as: bob.cookie,
    });
    expect(within.json().recordings).toHaveLength(1);
    const later = await t.request({ method: 'GET', url: `/api/call-recording/list?start=${new Date(now + 3_600_000).toISOString()}`, as: bob.cookie });
    expect(later.json().recordings).toHaveLength(0);
    const earlier = await t.request({ method: 'GET', url: `/api/call-recording/list?end=${new Date(now - 3_600_000).toISOString()}`, as: bob.cookie });
    expect(earlier.json().recordings).toHaveLength(0);
  });

  it('answers 400 for a bad date or a start after the end, and 401 anonymous', async () => {
    expect((await t.request({ method: 'GET', url: '/api/call-recording/list?start=yesterday', as: bob.cookie })).statusCode).toBe(400);
    // Year 0 passes the ISO pattern but PostgreSQL has no year 0 (was a 500).
    expect((await t.request({ method: 'GET', url: '/api/call-recording/list?start=0000-01-01T00:00:00Z', as: bob.cookie })).statusCode).toBe(400);
    const reversed = await t.request({ method: 'GET', url: '/api/call-recording/list?start=2025-02-01T00:00:00.000Z&end=2025-01-01T00:00:00.000Z', as: bob.cookie });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().error).toContain('start must not be after end');
    expect((await t.request({ method: 'GET', url: '/api/call-recording/list' })).statusCode).toBe(401);
  });
});

describe('GET /api/call-recording/:id/stream and /download', () => {
  let id: number;
  beforeAll(async () => {
    id = (await uploadOne(alice.cookie, { name: 'Größe call.mp3', type: 'audio/mpeg', data: MP3 })).id;
  });

  it('streams the whole file inline with its type and Accept-Ranges', async () => {
    const res = await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream`, as: alice.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(Number(res.headers['content-length'])).toBe(MP3.length);
    expect(res.headers['content-disposition']).toMatch(/^inline; /);
    expect(sha256(res.rawPayload)).toBe(sha256(MP3));
  });

  it('answers a Range request with 206 and exactly those bytes', async () => {
    const mid = await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream`, as: alice.cookie, headers: { range: 'bytes=100-1099' } });
    expect(mid.statusCode).toBe(206);
    expect(mid.headers['content-range']).toBe(`bytes 100-1099/${MP3.length}`);
    expect(Number(mid.headers['content-length'])).toBe(1000);
    expect(mid.rawPayload.equals(MP3.subarray(100, 1100))).toBe(true);
    const tail = await t.request({ method: 'GET', url: `/api/call-recording/${id}/download`, as: alice.cookie, headers: { range: 'bytes=-16' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(MP3.subarray(MP3.length - 16))).toBe(true);
    const open = await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream`, as: alice.cookie, headers: { range: `bytes=${MP3.length - 10}-` } });
    expect(open.rawPayload.equals(MP3.subarray(MP3.length - 10))).toBe(true);
  });

  it('answers 416 with the size for a range outside the file', async () => {
    const res = await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream`, as: alice.cookie, headers: { range: `bytes=${MP3.length}-` } });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${MP3.length}`);
    expect(res.json().code).toBe('RANGE_NOT_SATISFIABLE');
  });

  it('downloads as an attachment with an ASCII-safe name and the UTF-8 name', async () => {
    const res = await t.request({ method: 'GET', url: `/api/call-recording/${id}/download`, as: alice.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Gr__e call.mp3"; filename*=UTF-8''${encodeURIComponent('Größe call.mp3')}`,
    );
    expect(sha256(res.rawPayload)).toBe(sha256(MP3));
  });

  it('hides another user’s recording (404) but lets an ADMIN read it', async () => {
    for (const url of [`/api/call-recording/${id}/stream`, `/api/call-recording/${id}/download`]) {
      const res = await t.request({ method: 'GET', url, as: bob.cookie });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('RECORDING_NOT_FOUND');
      expect((await t.request({ method: 'GET', url, as: admin.cookie })).statusCode).toBe(200);
    }
  });

  it('answers 401 anonymous, 404 for an unknown id and 400 for a non-numeric id', async () => {
    expect((await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream` })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: `/api/call-recording/${id}/download` })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/call-recording/999999/stream', as: alice.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/call-recording/999999/download', as: alice.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/call-recording/abc/stream', as: alice.cookie })).statusCode).toBe(400);
  });
});

describe('transcripts', () => {
  let id: number;
  beforeAll(async () => {
    id = (await uploadOne(alice.cookie, { name: 'to-transcribe.wav', type: 'audio/wav', data: WAV })).id;
  });

  it('has none at first (GET 404)', async () => {
    const res = await t.request({ method: 'GET', url: `/api/call-recording/${id}/transcript`, as: alice.cookie });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('TRANSCRIPT_NOT_FOUND');
  });

  it('generates one through the speech-to-text endpoint with the whole file and keeps it', async () => {
    const res = await t.request({ method: 'POST', url: `/api/call-recording/${id}/transcript`, as: alice.cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ transcript: fakeTranscriptText(WAV.length) });
    const received = fake.requests.at(-1)!;
    expect(received).toMatchObject({ model: 'whisper-test', fileName: `recording-${id}.wav`, fileType: 'audio/wav', fileSize: WAV.length });
    expect(received.fileSha256).toBe(sha256(WAV));

    const read = await t.request({ method: 'GET', url: `/api/call-recording/${id}/transcript`, as: alice.cookie });
    expect(read.statusCode).toBe(200);
    const body = read.json();
    expect(body.transcript).toBe(fakeTranscriptText(WAV.length));
    expect(body.callInfo).toMatchObject({ user: alice.email, fileExtension: 'wav' });
    expect(body.callInfo.duration).toBeCloseTo(2, 1);
    expect(Date.parse(body.callInfo.date)).toBeGreaterThan(Date.now() - 60_000);
    const listed = (await t.request({ method: 'GET', url: '/api/call-recording/list', as: alice.cookie })).json().recordings;
    expect(listed.find((r: { id: number }) => r.id === id).transcript).toBe(fakeTranscriptText(WAV.length));
  });

  it('answers 502 with the provider’s message when speech-to-text fails', async () => {
    fake.failNext({ status: 400, message: 'Audio file might be corrupted or unsupported', type: 'invalid_request_error', code: 'invalid_value' });
    const res = await t.request({ method: 'POST', url: `/api/call-recording/${id}/transcript`, as: alice.cookie });
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('TRANSCRIPTION_FAILED');
    expect(res.json().error).toContain('Audio file might be corrupted or unsupported');
  });

  it('never shows the provider’s credentials error (it quotes part of the API key) to the user', async () => {
    fake.failNext({ status: 401, message: 'Incorrect API key provided: sk-proj-****************************abcd.', type: 'invalid_request_error', code: 'invalid_api_key' });
    const res = await t.request({ method: 'POST', url: `/api/call-recording/${id}/transcript`, as: alice.cookie });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({
      error: 'The transcription service refused our credentials. An administrator needs to check OPENAI_API_KEY.',
      code: 'TRANSCRIPTION_NOT_AUTHORIZED',
    });
    expect(res.body).not.toContain('abcd');
  });

  it('hides another user’s transcript (404), lets an ADMIN read it, and is 401 anonymous and 403 cross-site', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const url = `/api/call-recording/${id}/transcript`;
      expect((await t.request({ method, url, as: bob.cookie })).statusCode).toBe(404);
      expect((await t.request({ method, url })).statusCode).toBe(401);
      expect((await t.request({ method: 'GET', url: '/api/call-recording/999999/transcript', as: admin.cookie })).statusCode).toBe(404);
      expect((await t.request({ method, url: '/api/call-recording/0/transcript', as: alice.cookie })).statusCode).toBe(400);
    }
    expect((await t.request({ method: 'GET', url: `/api/call-recording/${id}/transcript`, as: admin.cookie })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: '/api/call-recording/999999/transcript', as: admin.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: `/api/call-recording/${id}/transcript`, as: alice.cookie, headers: FOREIGN })).statusCode).toBe(403);
  });
});

describe('DELETE /api/call-recording/:id', () => {
  it('removes the row and the file', async () => {
    const before = new Set(filesUnder(storageDir));
    const rec = await uploadOne(alice.cookie, { name: 'bye.wav', data: WAV });
    const [file] = filesUnder(storageDir).filter((f) => !before.has(f));
    expect(file).toBeDefined();
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}`, as: bob.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}` })).statusCode).toBe(401);
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}`, as: alice.cookie, headers: FOREIGN })).statusCode).toBe(403);
    expect(existsSync(path.join(storageDir, file))).toBe(true);

    const res = await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}`, as: alice.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Recording deleted.' });
    expect(existsSync(path.join(storageDir, file))).toBe(false);
    expect((await t.request({ method: 'GET', url: `/api/call-recording/${rec.id}/stream`, as: alice.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}`, as: alice.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: '/api/call-recording/nope', as: alice.cookie })).statusCode).toBe(400);
  });

  it('lets an ADMIN delete anyone’s recording', async () => {
    const rec = await uploadOne(bob.cookie, { name: 'admin-deletes.wav', data: WAV });
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${rec.id}`, as: admin.cookie })).statusCode).toBe(200);
  });
});

describe('limits and configuration', () => {
  const smallStorage = path.join(root, 'small');
  const small = useTestApp({ env: { STORAGE_DIR: smallStorage, UPLOAD_MAX_BYTES: '8000' } });
  const user = useUser(small);
  const smallAdmin = useUser(small, 'ADMIN');

  it('answers 413 for a file over UPLOAD_MAX_BYTES and keeps nothing of it', async () => {
    const res = await upload(user.cookie, [{ name: 'big.wav', type: 'audio/wav', data: WAV }], {}, small);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'A file is larger than the upload limit of 7.8 KB.', code: 'FILE_TOO_LARGE' });
    expect(filesUnder(smallStorage)).toEqual([]);
    const ok = await upload(user.cookie, [{ name: 'small.mp3', type: 'audio/mpeg', data: MP3 }], {}, small);
    expect(ok.statusCode).toBe(201);
  });

  it('answers 503 when no speech-to-text provider is configured: an ADMIN reads OPENAI_API_KEY, a member to ask their admin', async () => {
    const list = (await small.request({ method: 'GET', url: '/api/call-recording/list', as: user.cookie })).json().recordings;
    const res = await small.request({ method: 'POST', url: `/api/call-recording/${list[0].id}/transcript`, as: user.cookie });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ code: 'TRANSCRIPTION_NOT_CONFIGURED', error: 'Transcription is not set up on this server yet. Ask your admin.' });
    // An ADMIN may open any recording (the member's here).
    const asAdmin = await small.request({ method: 'POST', url: `/api/call-recording/${list[0].id}/transcript`, as: smallAdmin.cookie });
    expect(asAdmin.statusCode).toBe(503);
    expect(asAdmin.json().code).toBe('TRANSCRIPTION_NOT_CONFIGURED');
    expect(asAdmin.json().error).toContain('OPENAI_API_KEY');
    expect(asAdmin.json().error).toContain('OPENAI_BASE_URL');
  });

  it('GET /api/call-recording/transcription says ahead of time that transcripts cannot be generated, with the sentence for the reader', async () => {
    const res = await small.request({ method: 'GET', url: '/api/call-recording/transcription', as: user.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ available: false, reason: 'Transcription is not set up on this server yet. Ask your admin.' });
    const forAdmin = await small.request({ method: 'GET', url: '/api/call-recording/transcription', as: smallAdmin.cookie });
    expect(forAdmin.json().available).toBe(false);
    expect(forAdmin.json().reason).toContain('OPENAI_API_KEY');
    const configured = await t.request({ method: 'GET', url: '/api/call-recording/transcription', as: alice.cookie });
    expect(configured.json()).toEqual({ available: true, reason: null });
    const anonymous = await small.request({ method: 'GET', url: '/api/call-recording/transcription' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers 404 when the file has gone missing from storage', async () => {
    const list = (await small.request({ method: 'GET', url: '/api/call-recording/list', as: user.cookie })).json().recordings;
    for (const name of filesUnder(smallStorage)) if (!name.startsWith('.incoming')) rmSync(path.join(smallStorage, name));
    const res = await small.request({ method: 'GET', url: `/api/call-recording/${list[0].id}/stream`, as: user.cookie });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('RECORDING_FILE_MISSING');
  });
});
