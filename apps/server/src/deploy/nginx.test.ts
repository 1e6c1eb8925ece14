import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { useTestApp } from '../test/use-test-app.ts';
import { buildConversationType } from '../test/conversation-factories.ts';
import { MEDIA_STREAM_PATH } from '../voice/realtime/media-stream.routes.ts';

/**
 * deploy/nginx.conf, as shipped, in front of the real server: TLS with a certificate made here, http → https,
 * the live-event stream (SSE) unbuffered, and the WebSocket upgrade of the realtime media stream (101). Only the
 * ports, the upstream address and file paths are templated. Needs nginx (Debian: `apt-get install nginx-light`;
 * .ci/run installs it) and openssl; without them the test is skipped and says why.
 */
const root = path.resolve(import.meta.dirname, '../../../..');
const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p));
const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const missing = !nginx ? 'nginx is not installed (apt-get install nginx-light)' : !hasOpenssl ? 'openssl is not installed' : null;
if (missing) console.warn(`deploy/nginx.conf end-to-end test skipped: ${missing}.`);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Replaces `from` (which must occur) in the shipped configuration, so the test cannot drift from it silently. */
function replace(text: string, from: string | RegExp, to: string): string {
  const found = typeof from === 'string' ? text.includes(from) : from.test(text);
  if (!found) throw new Error(`deploy/nginx.conf no longer contains ${String(from)}`);
  return typeof from === 'string' ? text.split(from).join(to) : text.replace(new RegExp(from.source, 'g'), to);
}

describe.skipIf(missing !== null)('deploy/nginx.conf in front of the server', () => {
  const prefix = mkdtempSync(path.join(tmpdir(), 'sa-nginx-'));
  let proxy: ChildProcess;
  let httpPort: number;
  let httpsPort: number;
  let ca: Buffer;
  let typeId: number;
  let nginxLog = '';

  const t = useTestApp({ env: { TRUST_PROXY: '1', PUBLIC_URL: 'https://sales.example.com' } });
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const appPort = (t.app.server.address() as AddressInfo).port;
    typeId = (await buildConversationType(t.ctx)).id;
    [httpPort, httpsPort] = [await freePort(), await freePort()];

    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout', path.join(prefix, 'key.pem'), '-out', path.join(prefix, 'cert.pem'),
    ], { stdio: 'ignore' });
    ca = readFileSync(path.join(prefix, 'cert.pem'));

    let site = readFileSync(path.join(root, 'deploy/nginx.conf'), 'utf8');
    site = replace(site, /^\s*listen \[::\]:.*$/m, '');
    site = replace(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
    site = replace(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`);
    site = replace(site, 'server 127.0.0.1:3000;', `server 127.0.0.1:${appPort};`);
    site = replace(site, '/etc/letsencrypt/live/sales.example.com/fullchain.pem', path.join(prefix, 'cert.pem'));
    site = replace(site, '/etc/letsencrypt/live/sales.example.com/privkey.pem', path.join(prefix, 'key.pem'));
    site = replace(site, 'root /var/www/html;', `root ${prefix};`);
    writeFileSync(path.join(prefix, 'site.conf'), site);
    mkdirSync(path.join(prefix, 'temp'));
    const temp = (name: string) => `${name}_temp_path ${path.join(prefix, 'temp', name)};`;
    // What Debian's /etc/nginx/nginx.conf provides around a site file, in a prefix of our own (no root needed).
    writeFileSync(
      path.join(prefix, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${path.join(prefix, 'nginx.pid')};`,
        'error_log stderr warn;',
        'events { worker_connections 64; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `  ${temp(n)}`),
        `  include ${path.join(prefix, 'site.conf')};`,
        '}',
      ].join('\n'),
    );
    proxy = spawn(nginx!, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    proxy.stderr!.on('data', (chunk) => (nginxLog += chunk));
    // nginx has no readiness signal: wait until its https port answers (or it exits with its error).
    const exited = once(proxy, 'exit').then(() => {
      throw new Error(`nginx exited:\n${nginxLog}`);
    });
    for (;;) {
      const up = await Promise.race([get('/api/health').then(() => true, () => false), exited]);
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      proxy.kill('SIGQUIT');
      await once(proxy, 'exit');
    }
    rmSync(prefix, { recursive: true, force: true });
  });

  function get(pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const req = https.get({ host: '127.0.0.1', port: httpsPort, path: pathname, ca, headers }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
    });
  }

  function post(pathname: string, body: unknown): Promise<{ status: number; json: any }> {
    return new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = https.request(
        { host: '127.0.0.1', port: httpsPort, path: pathname, method: 'POST', ca, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (res) => {
          let data = '';
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(data) }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  it('redirects http to https, keeping the path and query', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port: httpPort, path: '/conversations?page=2' }, resolve).on('error', reject),
    );
    res.resume();
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('https://127.0.0.1/conversations?page=2');
  });

  it('serves the API over TLS with the certificate it was given', async () => {
    const res = await get('/api/health');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok' });
  });

  it('streams live events through unbuffered', async () => {
    const chat = await post('/api/conversation/new', { conversationTypeId: typeId });
    expect(chat.status).toBe(201);
    const uuid: string = chat.json.uuid;
    const req = https.get({ host: '127.0.0.1', port: httpsPort, path: `/api/conversation/${uuid}/events`, ca });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    let received = '';
    const event = new Promise<void>((resolve) =>
      res.on('data', (chunk) => {
        received += chunk;
        if (/^data: .*$/m.test(received)) resolve();
      }),
    );
    // A message written through the proxy: its change event must come back down the open stream at once.
    expect((await post(`/api/conversation/${uuid}/written-message`, { message: 'Hello through nginx' })).status).toBeLessThan(300);
    await event;
    expect(received).toContain(uuid);
    req.destroy();
  });

  it('upgrades the realtime media stream to a WebSocket (101)', async () => {
    const socket = new WebSocket(`wss://127.0.0.1:${httpsPort}${MEDIA_STREAM_PATH}`, { ca });
    // ws emits 'open' right after 'upgrade', in the same turn: listen for both first.
    const upgraded = once(socket, 'upgrade') as Promise<[http.IncomingMessage]>;
    const opened = once(socket, 'open');
    const [response] = await upgraded;
    expect(response.statusCode).toBe(101);
    expect(response.headers.upgrade).toBe('websocket');
    await opened;
    socket.close();
    await once(socket, 'close');
  });
});
