/**
 * Engine overhead: the time from a stored prospect message to its reply being queued for sending (the
 * AGENT message stored and its outbox row written), with debounce 0 and an LLM that answers at once.
 * Not part of `npm test`.
 *
 *   node --import tsx bench/engine-overhead.ts
 *
 * It runs the real engine (receiveProspectMessage, then the turn job through JobRunner.drain) on PGlite in
 * memory and on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; a
 * fresh database is created and dropped), each with two LLMs: the loopback OpenAI-compatible fake (real
 * SDK and HTTP, 0 ms think time; two calls per turn: transition + draft) and the offline demo provider
 * (no HTTP). BENCH_TURNS sets the measured turns per case (default 200, after 20 warm-up turns).
 */
import { performance } from 'node:perf_hooks';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { receiveProspectMessage } from '../apps/server/src/agent/agent.service.ts';
import { type Database, openDatabase } from '../apps/server/src/db/client.ts';
import { buildPlaybook, buildProspectConversation, outboxOf } from '../apps/server/src/test/agent-factories.ts';
import { OpenAiFake } from '../apps/server/src/test/fakes/openai-fake.ts';
import { openTestDatabase } from '../apps/server/src/test/test-database.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const WARMUP = 20;
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(database: Database, llm: 'fake' | 'demo', fake: OpenAiFake) {
  const config = loadConfig({
    NODE_ENV: 'test',
    APP_SECRET: 'bench-secret-bench-secret-bench',
    LOG_LEVEL: 'silent',
    DATA_DIR: `/tmp/sales-agent-bench-${process.pid}`,
    ...(llm === 'fake' ? fake.env() : {}),
  });
  const { app, ctx } = await buildApp({ config, database });
  await app.ready();
  const type = await buildPlaybook(ctx, { config: { replyDebounceSeconds: 0 } });
  const overhead: number[] = [];
  const store: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i += 1) {
    const { conversation } = await buildProspectConversation(ctx, type.id);
    const t0 = performance.now();
    await receiveProspectMessage(ctx, conversation.id, `hello ${i}`);
    const stored = performance.now();
    await ctx.jobs.drain();
    const sent = performance.now();
    if ((await outboxOf(ctx, conversation.id)).length !== 1) throw new Error(`turn ${i} did not queue exactly one reply`);
    if (i >= WARMUP) {
      store.push(stored - t0);
      overhead.push(sent - stored);
    }
  }
  await app.close();
  overhead.sort((a, b) => a - b);
  store.sort((a, b) => a - b);
  const fmt = (n: number) => n.toFixed(1);
  return {
    store: `${fmt(percentile(store, 50))} / ${fmt(percentile(store, 95))}`,
    overhead: `${fmt(percentile(overhead, 50))} / ${fmt(percentile(overhead, 95))}`,
    p50: percentile(overhead, 50),
  };
}

async function main() {
  const fake = new OpenAiFake();
  await fake.start();
  const rows: string[] = [];
  const cases: [string, () => Promise<Database>][] = [
    ['PGlite (in memory)', async () => {
      const database = openDatabase({ pgliteDir: 'memory://' });
      await database.migrate();
      return database;
    }],
    ['PostgreSQL 127.0.0.1', async () => {
      process.env.TEST_DB = 'pg';
      process.env.TEST_DATABASE_URL = pgUrl;
      return openTestDatabase();
    }],
  ];
  for (const [name, open] of cases) {
    for (const llm of ['fake', 'demo'] as const) {
      const database = await open();
      try {
        const result = await measure(database, llm, fake);
        const label = llm === 'fake' ? 'OpenAI fake over loopback HTTP (2 calls)' : 'offline demo provider';
        rows.push(`| ${name} | ${label} | ${result.store} | ${result.overhead} |`);
        console.log(rows.at(-1));
      } finally {
        await database.close();
      }
    }
  }
  await fake.close();
  console.log(`\n${TURNS} turns per case, ms as p50 / p95:\n`);
  console.log('| database | LLM | receiveProspectMessage (store + schedule) | stored → reply queued (turn) |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
