/**
 * Outbound webhooks (issue 27): delivery throughput and the cost the outbox adds to every stored message.
 * Not part of `npm test`.
 *
 *   node --import tsx bench/webhook-delivery.ts
 *
 * 1. Added cost per stored message: `insertMessage` (the one statement that stores a message, and now writes its
 *    message.created event) timed BENCH_MESSAGES times (default 2000, over 50 conversations) with no endpoint,
 *    then with one endpoint subscribed to message.created (event + delivery + job rows in the same statement).
 * 2. Delivery throughput: BENCH_EVENTS events (default 2000) spread over BENCH_LANES conversations (default 50)
 *    queued while the runner is stopped, then the app's own runner (default JOB_CONCURRENCY, 500 ms poll)
 *    started; the clock stops when the last delivery is DELIVERED to a loopback receiver that answers 200 at once
 *    (in this process, so it shares the CPU). Also one conversation alone (BENCH_LANE_EVENTS, default 300):
 *    a conversation's events go out one after the other, in order.
 *
 * Databases: PGlite in memory and PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
 * postgres; a fresh database is created and dropped). BENCH_DBS=pglite,pg chooses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { buildApp } from '../apps/server/src/app.ts';
import { benchConfig } from './support/bench-config.ts';
import type { AppContext } from '../apps/server/src/context.ts';
import { insertMessage } from '../apps/server/src/conversations/conversation-store.ts';
import { conversations, webhookEndpoints } from '../apps/server/src/db/schema/index.ts';
import { rowsOf } from '../apps/server/src/lib/limits.ts';
import { createWebhook } from '../apps/server/src/modules/integrations/webhooks.service.ts';
import { buildAdmin } from '../apps/server/src/test/factories.ts';
import { openTestDatabase } from '../apps/server/src/test/test-database.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const LANES = Number(process.env.BENCH_LANES ?? 50);
const LANE_EVENTS = Number(process.env.BENCH_LANE_EVENTS ?? 300);
const DBS = (process.env.BENCH_DBS ?? 'pglite,pg').split(',');
if (!process.env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (n: number) => `${n.toFixed(3)} ms`;

async function startReceiver(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function newConversations(ctx: AppContext, n: number): Promise<number[]> {
  const rows = await ctx.db.insert(conversations).values(Array.from({ length: n }, () => ({ phase: 0 }))).returning({ id: conversations.id });
  return rows.map((r) => r.id);
}

async function timeInserts(ctx: AppContext, ids: number[], n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await insertMessage(ctx.db, { conversationId: ids[i % ids.length], role: 'PROSPECT', message: `message ${i} with a little text in it` });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

function summary(times: number[]) {
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { mean, p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function waitDelivered(ctx: AppContext, total: number): Promise<void> {
  for (;;) {
    const [row] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select count(*)::int as n from webhook_deliveries where status = 'DELIVERED'`));
    if (row.n >= total) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function run(db: string) {
  if (db === 'pg') process.env.TEST_DB = 'pg';
  else delete process.env.TEST_DB;
  const database = await openTestDatabase();
  const config = benchConfig({ ALLOW_PRIVATE_URLS: 'true' });
  const { app, ctx } = await buildApp({ config, database });
  await app.ready();
  const receiver = await startReceiver();
  try {
    const admin = await buildAdmin(ctx);
    const ids = await newConversations(ctx, 50);
    await timeInserts(ctx, ids, 200); // warm-up
    const without = summary(await timeInserts(ctx, ids, MESSAGES));
    await createWebhook(ctx, admin, { url: receiver.url, events: ['message.created'] });
    await timeInserts(ctx, ids, 200);
    const withEndpoint = summary(await timeInserts(ctx, ids, MESSAGES));
    console.log(`\n[${db}] insertMessage, ${MESSAGES} messages (load ${loadavg()[0].toFixed(2)})`);
    console.log(`  no endpoint:          mean ${ms(without.mean)}  p50 ${ms(without.p50)}  p95 ${ms(without.p95)}`);
    console.log(`  1 endpoint subscribed: mean ${ms(withEndpoint.mean)}  p50 ${ms(withEndpoint.p50)}  p95 ${ms(withEndpoint.p95)}`);
    console.log(`  added per message:     mean ${ms(withEndpoint.mean - without.mean)}  p50 ${ms(withEndpoint.p50 - without.p50)}`);

    // Throughput: clear what the warm-up queued, then queue EVENTS over LANES conversations with the runner stopped.
    for (const [events, lanes] of [
      [EVENTS, LANES],
      [LANE_EVENTS, 1],
    ] as const) {
      await ctx.db.execute(sql`delete from jobs where name = 'webhooks.deliver'`);
      await ctx.db.execute(sql`delete from webhook_events`);
      const laneIds = await newConversations(ctx, lanes);
      for (let i = 0; i < events; i++) await insertMessage(ctx.db, { conversationId: laneIds[i % lanes], role: 'PROSPECT', message: `event ${i}` });
      const before = receiver.count();
      const started = performance.now();
      ctx.jobs.start();
      await waitDelivered(ctx, events);
      const seconds = (performance.now() - started) / 1000;
      await ctx.jobs.stop();
      const [retried] = rowsOf<{ n: number; attempts: number; err: string | null }>(
        await ctx.db.execute(sql`select count(*) filter (where attempts > 1)::int as n, coalesce(sum(attempts), 0)::int as attempts, max(last_error) as err from webhook_deliveries`),
      );
      if (retried.n > 0) console.log(`  (${retried.n} deliveries needed more than one attempt; last error: ${retried.err})`);
      console.log(`  delivery: ${events} events over ${lanes} conversation(s): ${seconds.toFixed(2)} s, ${(events / seconds).toFixed(0)} events/s (receiver got ${receiver.count() - before})`);
    }
    await ctx.db.update(webhookEndpoints).set({ enabled: false });
  } finally {
    await app.close();
    await receiver.close();
    await database.close();
  }
}

for (const db of DBS) await run(db);
