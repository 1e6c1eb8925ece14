import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.ts';
import { buildConversationType } from '../test/conversation-factories.ts';
import { buildTestApp, type TestApp } from '../test/build-test-app.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { loggerOptions } from './logging.ts';
import { trustProxyOption } from './trust-proxy.ts';

/**
 * TRUST_PROXY in each documented form (docs/deployment.md "Behind a proxy"): the login limit, the anonymous chat
 * limit and the request log must see the client's address from X-Forwarded-For, and only from the hops trusted.
 */
interface Hop {
  /** The TCP peer (the proxy, or a client talking to the server directly). */
  remoteAddress: string;
  xff?: string;
}

/** A failed login; each client uses its own email, so only the per-client limit can tell them apart. */
const login = (t: TestApp, hop: Hop, email = 'x@example.com') =>
  t.request({
    method: 'POST',
    url: '/api/user/login',
    remoteAddress: hop.remoteAddress,
    headers: hop.xff ? { 'x-forwarded-for': hop.xff } : {},
    payload: { email, password: 'whatever1' },
  });

const newChat = (t: TestApp, typeId: number, hop: Hop) =>
  t.request({
    method: 'POST',
    url: '/api/conversation/new',
    remoteAddress: hop.remoteAddress,
    headers: hop.xff ? { 'x-forwarded-for': hop.xff } : {},
    payload: { conversationTypeId: typeId },
  });

/**
 * `clientA(i)` are requests of one client (i varies what a client could make up), `clientB` another client.
 * With a limit of 2: A's third request is refused whatever it made up, B still gets through.
 */
async function expectLimitPerClient(send: (hop: Hop, client: 'a' | 'b') => Promise<{ statusCode: number }>, ok: number, clientA: (i: number) => Hop, clientB: Hop) {
  const codes = [];
  for (let i = 0; i < 3; i++) codes.push((await send(clientA(i), 'a')).statusCode);
  expect(codes).toEqual([ok, ok, 429]);
  expect((await send(clientB, 'b')).statusCode).toBe(ok);
}

const forms: { name: string; value: string | undefined; clientA: (i: number) => Hop; clientB: Hop; direct?: Hop }[] = [
  {
    name: 'a hop count (1: the nearest proxy appends the client)',
    value: '1',
    // The leftmost entries are whatever the client sent; only the one the proxy appended counts.
    clientA: (i) => ({ remoteAddress: '10.9.0.1', xff: `203.0.113.${i}, 198.51.100.1` }),
    clientB: { remoteAddress: '10.9.0.1', xff: '198.51.100.2' },
  },
  {
    name: 'a hop count (2: a CDN, then nginx)',
    value: '2',
    clientA: (i) => ({ remoteAddress: '10.9.0.1', xff: `203.0.113.${i}, 198.51.100.1, 10.8.0.1` }),
    clientB: { remoteAddress: '10.9.0.1', xff: '198.51.100.2, 10.8.0.1' },
  },
  {
    name: 'true (the proxy overwrites the header)',
    value: 'true',
    clientA: () => ({ remoteAddress: '10.9.0.1', xff: '198.51.100.1, 10.8.0.1' }),
    clientB: { remoteAddress: '10.9.0.1', xff: '198.51.100.2, 10.8.0.1' },
  },
  {
    name: 'a list of addresses/CIDRs',
    value: '10.9.0.0/16, ::1',
    clientA: (i) => ({ remoteAddress: '10.9.0.1', xff: `203.0.113.${i}, 198.51.100.1` }),
    clientB: { remoteAddress: '10.9.0.2', xff: '198.51.100.2' },
    // A peer outside the list is the client itself, whatever X-Forwarded-For it sends.
    direct: { remoteAddress: '192.0.2.7', xff: '198.51.100.1' },
  },
];

for (const form of forms) {
  describe(`TRUST_PROXY as ${form.name}`, () => {
    let typeId: number;
    const t = useTestApp({ env: { TRUST_PROXY: form.value!, AUTH_RATE_LIMIT: '2', CHAT_RATE_LIMIT: '2' } });
    beforeAll(async () => {
      typeId = (await buildConversationType(t.ctx)).id;
    });

    it('counts the login limit per client address', async () => {
      await expectLimitPerClient((hop, client) => login(t, hop, `${client}@example.com`), 401, form.clientA, form.clientB);
    });

    it('counts the anonymous chat limit per client address', async () => {
      await expectLimitPerClient((hop) => newChat(t, typeId, hop), 201, form.clientA, form.clientB);
    });

    if (form.direct) {
      const direct = form.direct;
      it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
        // 198.51.100.1 (clientA) is used up above; the same header from an untrusted peer is that peer's own count.
        expect((await login(t, direct)).statusCode).toBe(401);
        expect((await login(t, direct)).statusCode).toBe(401);
        expect((await login(t, { ...direct, xff: '198.51.100.99' })).statusCode).toBe(429);
      });
    }
  });
}

describe('TRUST_PROXY unset', () => {
  it('keys limits on the connection, whatever X-Forwarded-For says', async () => {
    const t = await buildTestApp({ AUTH_RATE_LIMIT: '2' });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await login(t, { remoteAddress: '10.9.0.1', xff: `198.51.100.${i}` })).statusCode);
      expect(codes).toEqual([401, 401, 429]);
    } finally {
      await t.close();
    }
  });
});

describe('TRUST_PROXY values', () => {
  const parse = (value: string) => loadConfig({ APP_SECRET: 'test-secret-test-secret-test-secret', TRUST_PROXY: value }).TRUST_PROXY;
  it('reads false, true, hop counts and lists', () => {
    expect(parse('')).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('0')).toBe(false);
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('10.0.0.0/8, 192.168.1.1,::1,fd00::/8,loopback')).toBe('10.0.0.0/8, 192.168.1.1,::1,fd00::/8,loopback');
  });

  it('refuses a value that is none of these, at start', () => {
    for (const bad of ['yes', '10.0.0.0/33', 'proxy.example.com', '1.2.3']) {
      expect(() => parse(bad)).toThrow(/TRUST_PROXY: must be true, false, a hop count, or comma-separated addresses/);
    }
  });
});

describe('request logs behind a proxy', () => {
  for (const [value, hop, client] of [
    ['1', { remoteAddress: '10.9.0.1', xff: '203.0.113.9, 198.51.100.1' }, '198.51.100.1'],
    ['true', { remoteAddress: '10.9.0.1', xff: '198.51.100.1, 10.8.0.1' }, '198.51.100.1'],
    ['10.9.0.0/16', { remoteAddress: '10.9.0.1', xff: '198.51.100.1' }, '198.51.100.1'],
    ['', { remoteAddress: '10.9.0.1', xff: '198.51.100.1' }, '10.9.0.1'],
  ] as const) {
    it(`logs ${client} as the remote address with TRUST_PROXY=${JSON.stringify(value)}`, async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      const config = loadConfig({ APP_SECRET: 'test-secret-test-secret-test-secret', TRUST_PROXY: value });
      // The app's own logger configuration and trustProxy option (app.ts), on a bare server.
      const app = Fastify({ loggerInstance: pino(loggerOptions({ LOG_LEVEL: 'info' }) as pino.LoggerOptions, stream), trustProxy: trustProxyOption(config.TRUST_PROXY) });
      app.get('/ping', async () => 'pong');
      await app.inject({ url: '/ping', remoteAddress: hop.remoteAddress, headers: { 'x-forwarded-for': hop.xff } });
      await app.close();
      const incoming = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'incoming request');
      expect(incoming.req.remoteAddress).toBe(client);
    });
  }
});
