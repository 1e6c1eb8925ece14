import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/use-test-app.ts';
import { buildUser, type TestUser } from '../test/factories.ts';
import { multipartPayload } from '../test/multipart.ts';

/**
 * The slow-body cut-off (issue 29 item 6) over real sockets: a trickled JSON body and a stalled upload are cut
 * with 408 and the connection closed; an upload that keeps moving runs past the JSON limit unharmed.
 */
const MP3 = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/tone-3s.mp3'));

let port: number;
let user: TestUser;
const storageDir = mkdtempSync(path.join(tmpdir(), 'sales-agent-body-timeout-'));
// Registered first, so it runs last: after the app has closed its files.
afterAll(() => rmSync(storageDir, { recursive: true, force: true }));
const t = useTestApp({ env: { REQUEST_BODY_TIMEOUT_MS: '200', UPLOAD_IDLE_TIMEOUT_MS: '400', UPLOAD_MIN_BYTES: '256', STORAGE_DIR: storageDir } });
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  user = await buildUser(t.ctx);
});

/** Sends `head` and then `drip` every `everyMs` until the server closes the connection; answers what it said. */
function trickle(head: string, drip: Buffer, everyMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip);
      }, everyMs);
    });
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => {
      /* a reset after the answer is expected */
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Buffer.concat(received).toString());
    });
    socket.setTimeout(20_000, () => reject(new Error('the server never cut the trickled body')));
  });
}

describe('slow request bodies', () => {
  it('cuts a trickled JSON body with 408 REQUEST_TIMEOUT and closes the connection', async () => {
    const head = 'POST /api/user/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"email":"';
    const answer = await trickle(head, Buffer.from('a'), 20);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'REQUEST_TIMEOUT', error: expect.stringContaining('too long') });
  });

  it('cuts an upload that stalls (a few bytes per window) with 408', async () => {
    const { payload, headers } = multipartPayload([{ name: 'call.mp3', type: 'audio/mpeg', data: MP3 }]);
    const head =
      `POST /api/call-recording/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${user.cookie}\r\nContent-Type: ${headers['content-type']}\r\n` +
      `Content-Length: ${payload.length}\r\n\r\n`;
    const answer = await trickle(head + payload.subarray(0, 200).toString('latin1'), Buffer.from('x'), 50);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('REQUEST_TIMEOUT');
  });

  it('lets an upload that keeps moving run longer than the JSON limit', async () => {
    const { payload, headers } = multipartPayload([{ name: 'call.mp3', type: 'audio/mpeg', data: MP3 }]);
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/api/call-recording/upload', headers: { cookie: user.cookie, 'content-type': headers['content-type'], 'content-length': payload.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      request.on('error', reject);
      // 512 bytes every 50 ms: far above the minimum per window, and well past the 200 ms of a JSON body.
      let offset = 0;
      const timer = setInterval(() => {
        const next = payload.subarray(offset, offset + 512);
        offset += next.length;
        if (offset >= payload.length) {
          clearInterval(timer);
          request.end(next);
        } else request.write(next);
      }, 50);
    });
    expect(response.status, response.body).toBe(201);
  });
});
