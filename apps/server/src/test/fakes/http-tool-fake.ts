import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback.ts';

/**
 * A team's own HTTP endpoint behind a custom tool (issue 22), on loopback: it checks `X-Signature:
 * t=<unix s>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>` as a receiver would (5-minute window),
 * records every request, and answers per `mode`.
 */
export interface HttpToolFake {
  baseUrl: string;
  secret: string;
  mode: 'ok' | 'error' | 'big' | 'hang' | 'redirect';
  requests: { method: string; path: string; query: Record<string, string>; headers: http.IncomingHttpHeaders; body: string; signatureValid: boolean }[];
  close(): Promise<void>;
}

export function verifySignature(secret: string, header: string | undefined, body: string, nowMs = Date.now()): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  if (Math.abs(nowMs / 1000 - Number(match[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

export async function startHttpToolFake(secret = 'whsec_tool_fake_51f0'): Promise<HttpToolFake> {
  const fake: HttpToolFake = { baseUrl: '', secret, mode: 'ok', requests: [], close: async () => undefined };
  const server = http.createServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    const signatureValid = verifySignature(secret, req.headers['x-signature'] as string | undefined, body);
    fake.requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, signatureValid });
    if (fake.mode === 'hang') return;
    if (fake.mode === 'redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      return res.end();
    }
    if (!signatureValid) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end('{"error":"bad signature"}');
    }
    if (fake.mode === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' });
      return res.end('{"error":"order service down"}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (fake.mode === 'big') return res.end(JSON.stringify({ blob: 'x'.repeat(40_000) }));
    const order = url.pathname.split('/').at(-1);
    res.end(JSON.stringify({ order, status: 'shipped', eta: '2026-12-01' }));
  });
  fake.baseUrl = await listenOnLoopback(server);
  fake.close = () => closeServer(server);
  return fake;
}
