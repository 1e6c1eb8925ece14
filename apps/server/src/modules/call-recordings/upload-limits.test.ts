import http from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/use-test-app.ts';
import { buildUser } from '../../test/factories.ts';
import { multipartPayload } from '../../test/multipart.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures');
const MP3 = readFileSync(path.join(fixtures, 'tone-3s.mp3')); // 6,417 bytes
const REQUEST_MAX = 12 * 1024; // one MP3 per request
const QUOTA = 16_000; // two MP3s fit, a third does not
const DAILY = 27_000; // four MP3s a day

const root = mkdtempSync(path.join(tmpdir(), 'upload-limits-test-'));
// Registered first, so it runs last: after the app has closed its files.
afterAll(() => rmSync(root, { recursive: true, force: true }));
let base: string;
const t = useTestApp({
  env: {
    STORAGE_DIR: path.join(root, 'storage'),
    UPLOAD_MAX_BYTES: String(8 * 1024),
    UPLOAD_REQUEST_MAX_BYTES: String(REQUEST_MAX),
    UPLOAD_QUOTA_BYTES: String(QUOTA),
    UPLOAD_DAILY_BYTES: String(DAILY),
    STORAGE_MIN_FREE_BYTES: '0',
  },
});
beforeAll(async () => {
  base = await t.listen();
});

const uploadMp3 = (cookie: string) => {
  const body = multipartPayload([{ name: 'call.mp3', type: 'audio/mpeg', data: MP3 }]);
  return t.request({ method: 'POST', url: '/api/call-recording/upload', as: cookie, payload: body.payload, headers: body.headers });
};

/** Files left in the storage (recordings and unfinished incoming parts). */
const storedFiles = () => readdirSync(path.join(root, 'storage'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());

/**
 * Starts an upload over a real socket and sends `chunks` of a file without ever ending the request: the
 * answer can only come from a server that refuses before the body ends.
 */
function startUpload(cookie: string, options: { declaredLength?: number; chunks: number; chunkSize: number }) {
  const boundary = '----upload-limits-test';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
  );
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; closed: Promise<void>; sent: number }>((resolve, reject) => {
    let sent = 0;
    const req = http.request(`${base}/api/call-recording/upload`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...(options.declaredLength ? { 'content-length': String(options.declaredLength) } : { 'transfer-encoding': 'chunked' }),
      },
    });
    const closed = new Promise<void>((done) => req.on('close', () => done()));
    // Writes after the server closed the connection fail; that is the expected outcome here.
    req.on('error', () => undefined);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, closed, sent }));
      res.on('error', reject);
    });
    req.write(head);
    for (let i = 0; i < options.chunks; i++) {
      req.write(Buffer.alloc(options.chunkSize, i));
      sent += options.chunkSize;
    }
    // Never req.end(): the rest of the body does not exist.
  });
}

describe('upload limits', () => {
  it('refuses a declared Content-Length over the request limit at once and closes the connection', async () => {
    const user = await buildUser(t.ctx);
    const res = await startUpload(user.cookie, { declaredLength: 1024 ** 3, chunks: 1, chunkSize: 1024 });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({
      error: 'One upload may carry at most 12 KB in total. Send fewer files at a time.',
      code: 'UPLOAD_TOO_LARGE',
    });
    await res.closed;
  });

  it('refuses a streamed body as soon as it passes the request limit, without reading to the end', async () => {
    const user = await buildUser(t.ctx);
    // The per-file limit (8 KB) is crossed within the third chunk; the other chunks and the end never come.
    const res = await startUpload(user.cookie, { chunks: 8, chunkSize: 4 * 1024 });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body).code).toBe('FILE_TOO_LARGE');
    await res.closed;
    expect(storedFiles()).toEqual([]);
  });

  it('counts every file of a request against the request limit', async () => {
    const user = await buildUser(t.ctx);
    const files = Array.from({ length: 3 }, (_, i) => ({ name: `part${i}.mp3`, type: 'audio/mpeg', data: Buffer.alloc(5 * 1024, i) }));
    const body = multipartPayload(files);
    const res = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: user.cookie, payload: body.payload, headers: body.headers });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('UPLOAD_TOO_LARGE');
    expect(storedFiles()).toEqual([]);
  });

  it('keeps a storage quota per user with a clear message, and frees it when recordings are deleted', async () => {
    const user = await buildUser(t.ctx);
    const first = await uploadMp3(user.cookie);
    expect(first.statusCode, first.body).toBe(201);
    expect((await uploadMp3(user.cookie)).statusCode).toBe(201);
    const refused = await uploadMp3(user.cookie);
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toEqual({
      error: 'Your recordings use 12.5 KB of your 15.6 KB storage quota; this upload does not fit. Delete recordings you no longer need to make room.',
      code: 'STORAGE_QUOTA_EXCEEDED',
    });
    // Another user's quota is their own.
    expect((await uploadMp3((await buildUser(t.ctx)).cookie)).statusCode).toBe(201);

    const id = first.json().recordings[0].id;
    expect((await t.request({ method: 'DELETE', url: `/api/call-recording/${id}`, as: user.cookie })).statusCode).toBe(200);
    expect((await uploadMp3(user.cookie)).statusCode).toBe(201);
  });

  it('limits the bytes a user uploads per day, deleted recordings included', async () => {
    const user = await buildUser(t.ctx);
    for (let i = 0; i < 2; i++) expect((await uploadMp3(user.cookie)).statusCode).toBe(201);
    const list = await t.request({ method: 'GET', url: '/api/call-recording/list', as: user.cookie });
    for (const r of list.json().recordings as { id: number }[]) {
      await t.request({ method: 'DELETE', url: `/api/call-recording/${r.id}`, as: user.cookie });
    }
    for (let i = 0; i < 2; i++) expect((await uploadMp3(user.cookie)).statusCode).toBe(201);
    // 25,668 bytes today of 27,000: the next one passes the day's limit though the quota would take it.
    const refused = await uploadMp3(user.cookie);
    expect(refused.statusCode).toBe(413);
    expect(refused.json().code).toBe('DAILY_UPLOAD_LIMIT');
    expect(refused.json().error).toMatch(/^You can upload 26.4 KB per day and have 1.3 KB left; the limit resets in \d+ hours?\.$/);
  });
});
