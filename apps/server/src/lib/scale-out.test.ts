import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.ts';
import type { AppContext } from '../context.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { STREAMS_PER_CLIENT } from '../modules/conversations/conversation-events.ts';
import { buildConversationType } from '../test/conversation-factories.ts';
import { openEventStream } from '../test/event-stream.ts';
import { buildUser } from '../test/factories.ts';
import { testConfig } from '../test/build-test-app.ts';
import { openTestDatabase } from '../test/test-database.ts';
import { EVENT_CHANNEL, NOTIFY_INLINE_LIMIT, PgEventBus } from './events.ts';

/**
 * Two server instances on one PostgreSQL, each with its own connection pool and event listener, as two
 * processes behind a load balancer would be (docs/deployment.md). Only meaningful with TEST_DB=pg: the
 * embedded mode is one process by design.
 */
const onPostgres = process.env.TEST_DB === 'pg';

interface Instance {
  app: FastifyInstance;
  ctx: AppContext;
  base: string;
  database: Database;
}

async function startInstance(url: string): Promise<Instance> {
  const database = openDatabase({ url, poolSize: 5 });
  const config = testConfig({ DATABASE_URL: url, AUTH_RATE_LIMIT: '3', CHAT_CONVERSATION_LIMIT: '3' });
  const { app, ctx } = await buildApp({ config, database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  await (ctx.events as PgEventBus).ready;
  return { app, ctx, database, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

const openStream = (base: string, uuid: string) => openEventStream(`${base}/api/conversation/${uuid}/events`);

describe.skipIf(!onPostgres)('two instances on one PostgreSQL', () => {
  let shared: Awaited<ReturnType<typeof openTestDatabase>>;
  let a: Instance;
  let b: Instance;
  let typeId: number;

  beforeAll(async () => {
    shared = await openTestDatabase();
    a = await startInstance(shared.url!);
    b = await startInstance(shared.url!);
    typeId = (await buildConversationType(a.ctx)).id;
  });
  afterAll(async () => {
    for (const instance of [a, b]) {
      await instance?.app.close();
      await instance?.database.close();
    }
    await shared?.close();
  });

  const post = (instance: Instance, url: string, payload: unknown, cookie?: string) =>
    instance.app.inject({ method: 'POST', url, payload: payload as object, headers: cookie ? { cookie } : {} });

  it('a message stored through one instance is pushed to an SSE viewer of the other', async () => {
    const created = await post(a, '/api/conversation/new', { conversationTypeId: typeId });
    expect(created.statusCode).toBe(201);
    const { uuid } = created.json();
    const stream = await openStream(b.base, uuid);
    expect(stream.status).toBe(200);
    await stream.read((text) => text.includes('event: ready'));

    const sent = await post(a, `/api/conversation/${uuid}/written-message`, { message: 'Hello from instance A' });
    expect(sent.statusCode).toBe(200);
    const text = await stream.read((s) => s.includes('event: conversation.changed'));
    expect(text).toContain(`data: {"uuid":"${uuid}"}`);
    stream.close();
  });

  it('delivers an event whose payload is larger than a NOTIFY can carry', async () => {
    const big = 'x'.repeat(NOTIFY_INLINE_LIMIT + 5000);
    const received = new Promise<{ conversationId: number; uuid: string }>((resolve) => {
      const stop = b.ctx.events.on('conversation.changed', (event) => {
        if (event.conversationId !== -42) return;
        stop();
        resolve(event);
      });
    });
    a.ctx.events.emit('conversation.changed', { conversationId: -42, uuid: big });
    expect((await received).uuid).toBe(big);
  });

  it('resumes delivery after the listening connection is lost (the instance reconnects)', async () => {
    const killed = await a.ctx.db.execute(sql`
      select pg_terminate_backend(pid) as done from pg_stat_activity
      where datname = current_database() and query = ${`listen ${EVENT_CHANNEL}`}`);
    expect((killed as unknown as { rows: unknown[] }).rows.length).toBeGreaterThanOrEqual(2);
    let received = 0;
    const stop = b.ctx.events.on('unanswered.changed', (event) => {
      if (event.conversationId === -7) received++;
    });
    // Events sent while B is reconnecting are lost (the page's poll covers that gap); keep sending until one
    // arrives through the new connection.
    await vi.waitFor(
      () => {
        a.ctx.events.emit('unanswered.changed', { conversationId: -7 });
        expect(received).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 200 },
    );
    stop();
  });

  it('the login limit reached through one instance is enforced by the other', async () => {
    const body = { email: 'nobody@example.com', password: 'wrong-password' };
    const codes = [];
    for (const instance of [a, b, a]) codes.push((await post(instance, '/api/user/login', body)).statusCode);
    expect(codes).toEqual([401, 401, 401]);
    const refused = await post(b, '/api/user/login', body);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('RATE_LIMITED');
  });

  it('the per-conversation message limit counts messages of both instances, signed in or not', async () => {
    const user = await buildUser(a.ctx, { role: 'ADMIN' });
    const { uuid } = (await post(a, '/api/conversation/new', { conversationTypeId: typeId })).json();
    expect((await post(a, `/api/conversation/${uuid}/written-message`, { message: 'one' })).statusCode).toBe(200);
    expect((await post(b, `/api/conversation/${uuid}/written-message`, { message: 'two' }, user.cookie)).statusCode).toBe(200);
    expect((await post(a, `/api/conversation/${uuid}/written-message`, { message: 'three' })).statusCode).toBe(200);
    const refused = await post(b, `/api/conversation/${uuid}/written-message`, { message: 'four' }, user.cookie);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'CONVERSATION_RATE_LIMITED' });
  });

  it(`caps a visitor's open streams at ${STREAMS_PER_CLIENT} across both instances`, async () => {
    const { uuid } = (await post(a, '/api/conversation/new', { conversationTypeId: typeId })).json();
    const streams = [];
    for (let i = 0; i < STREAMS_PER_CLIENT; i++) streams.push(await openStream(i % 2 ? a.base : b.base, uuid));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await openStream(a.base, uuid);
    expect(refused.status).toBe(429);
    refused.close();
    for (const s of streams) s.close();
  });
});
