import type { AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import type { AppContext } from '../context.ts';
import { openTestDatabase } from './test-database.ts';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  /**
   * Sends a request, optionally as a signed-in user (cookie from `login`). `json` is a body sent as written with
   * content-type application/json (a malformed or non-object body on purpose; objects go in `payload`).
   */
  request(options: InjectOptions & { as?: string; json?: string }): Promise<LightMyRequestResponse>;
  /** Listens on a free loopback port (for real sockets: streams, slow bodies, proxies); answers its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The config of a test server: the test defaults below, then `env`, through the same loader as production.
 */
export function testConfig(env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    APP_SECRET: 'test-secret-test-secret-test-secret',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    AUTH_RATE_LIMIT: '1000',
    CHAT_RATE_LIMIT: '1000',
    DATA_DIR: `/tmp/sales-agent-test-${process.pid}`,
    // Providers default to a loopback port where nothing listens: a test that sends without its fake gets a
    // refused connection at once (a transient failure, retried later), never a request to the internet.
    META_GRAPH_URL: 'http://127.0.0.1:9',
    INSTAGRAM_GRAPH_URL: 'http://127.0.0.1:9',
    TWILIO_API_URL: 'http://127.0.0.1:9',
    // The channel fakes listen on loopback; outbound-url.test.ts checks the rule with it off.
    ALLOW_PRIVATE_URLS: 'true',
    // The channel tests run without an LLM and expect the demo agent's replies on their (fake) accounts;
    // the tests of "no demo text to real people" pass 'false'.
    DEMO_AGENT_ON_LIVE_CHANNELS: 'true',
    // Tests run on the real clock, which may be at night; quiet-hours tests pass 'true' and move the clock.
    QUIET_HOURS_ENFORCED: 'false',
    ...env,
  });
}

/**
 * Builds the real app on a fresh database. Extra environment (e.g. OPENAI_BASE_URL of a loopback fake)
 * goes through the same config loader as production.
 */
export async function buildTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const config = testConfig(env);
  const { app, ctx } = await buildApp({ config, database });
  await app.ready();
  let closing: Promise<void> | undefined;
  return {
    app,
    ctx,
    request: ({ as, headers, json, ...options }) =>
      app.inject({
        ...options,
        ...(json === undefined ? {} : { payload: json }),
        headers: { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers, ...(as ? { cookie: as } : {}) },
      }),
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    },
    // Once, however often it is called (a test may close early what useTestApp closes again after it).
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await database.close();
      })()),
  };
}
