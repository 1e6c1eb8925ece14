/**
 * Engine overhead: the time from a prospect message to its reply's outbound send request (the AGENT
 * message stored and its outbox row committed, signalled by the `outbox.queued` event), minus the debounce
 * window, with an LLM that answers at once. Not part of `npm test`.
 *
 *   node --import tsx bench/engine-overhead.ts
 *
 * It runs the real engine the way a server does: `receiveProspectMessage` (store + schedule) and then the
 * app's own polling JobRunner (started, default 500 ms poll) picking the turn job up — no `drain()` calls.
 * The clock starts when `receiveProspectMessage` is called (so storing the message counts too) and stops
 * when the outbox row of the reply is committed. Work after the send request (unanswered entry, follow-up
 * job, the runner's bookkeeping) is outside the clock, but the bench waits for it before the next turn so
 * turns never overlap.
 *
 * Cases: PGlite in memory and PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
 * postgres; a fresh database is created and dropped), each with two LLMs: the loopback OpenAI-compatible
 * fake (real SDK and HTTP, 0 ms think time; two calls per turn: transition + draft) and the offline demo
 * provider (no HTTP). Debounce 0 (BENCH_TURNS measured turns, default 200, after 20 warm-up turns) and, with
 * the fake, a 0.3 s debounce window (BENCH_WINDOW_TURNS, default 40) whose length is subtracted — it shows
 * whether the turn starts when the window closes or only at the runner's next poll.
 */
import { sql } from 'drizzle-orm';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { buildApp } from '../apps/server/src/app.ts';
import { benchConfig } from './support/bench-config.ts';
import type { AppContext } from '../apps/server/src/context.ts';
import { receiveProspectMessage } from '../apps/server/src/agent/agent.service.ts';
import { type Database, openDatabase } from '../apps/server/src/db/client.ts';
import { jobs } from '../apps/server/src/db/schema/index.ts';
import { buildPlaybook, buildProspectConversation, outboxOf } from '../apps/server/src/test/agent-factories.ts';
import { OpenAiFake } from '../apps/server/src/test/fakes/openai-fake.ts';
import { openTestDatabase } from '../apps/server/src/test/test-database.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const WINDOW_TURNS = Number(process.env.BENCH_WINDOW_TURNS ?? 40);
const WARMUP = 20;
const WINDOW_SECONDS = 0.3;
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Resolves when the outbox row of a reply on this conversation is committed. */
function queued(ctx: AppContext, conversationId: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no reply queued on conversation ${conversationId} within 10 s`));
    }, 10_000);
    const off = ctx.events.on('outbox.queued', (event) => {
      if (event.conversationId !== conversationId) return;
      const at = performance.now();
      clearTimeout(timer);
      off();
      resolve(at);
    });
  });
}

/** Waits until no job is due or running (the turn's follow-up bookkeeping has finished). */
async function idle(ctx: AppContext) {
  for (let i = 0; i < 2000; i += 1) {
    const open = await ctx.db.$count(jobs, sql`(status = 'pending' and run_at <= now()) or status = 'running'`);
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error('the job runner did not go idle');
}

async function measure(database: Database, llm: 'fake' | 'demo', fake: OpenAiFake, windowSeconds: number, turns: number) {
  const config = benchConfig({
    LOG_LEVEL: 'silent',
    ...(llm === 'fake' ? fake.env() : {}),
  });
  // The production poll interval (500 ms): a turn that waits for the next poll shows in the numbers.
  const { app, ctx } = await buildApp({ config, database });
  await app.ready();
  ctx.jobs.start();
  const type = await buildPlaybook(ctx, { config: { replyDebounceSeconds: windowSeconds } });
  const overhead: number[] = [];
  const store: number[] = [];
  for (let i = 0; i < WARMUP + turns; i += 1) {
    const { conversation } = await buildProspectConversation(ctx, type.id);
    await idle(ctx);
    const sent = queued(ctx, conversation.id);
    const t0 = performance.now();
    await receiveProspectMessage(ctx, conversation.id, `hello ${i}`);
    const stored = performance.now();
    const at = await sent;
    await idle(ctx);
    if ((await outboxOf(ctx, conversation.id)).length !== 1) throw new Error(`turn ${i} did not queue exactly one reply`);
    if (i >= WARMUP) {
      store.push(stored - t0);
      overhead.push(at - t0 - windowSeconds * 1000);
    }
  }
  await app.close();
  overhead.sort((a, b) => a - b);
  store.sort((a, b) => a - b);
  const fmt = (n: number) => n.toFixed(1);
  return {
    store: `${fmt(percentile(store, 50))} / ${fmt(percentile(store, 95))}`,
    overhead: `${fmt(percentile(overhead, 50))} / ${fmt(percentile(overhead, 95))}`,
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
  const runs: { llm: 'fake' | 'demo'; window: number; turns: number }[] = [
    { llm: 'fake', window: 0, turns: TURNS },
    { llm: 'demo', window: 0, turns: TURNS },
    { llm: 'fake', window: WINDOW_SECONDS, turns: WINDOW_TURNS },
  ];
  const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
  console.log(`load average at start: ${load()}`);
  for (const [name, open] of cases) {
    for (const run of runs) {
      const database = await open();
      try {
        const result = await measure(database, run.llm, fake, run.window, run.turns);
        const label = run.llm === 'fake' ? 'OpenAI fake over loopback HTTP (2 calls)' : 'offline demo provider';
        rows.push(`| ${name} | ${label} | ${run.window} s | ${run.turns} | ${result.store} | ${result.overhead} |`);
        console.log(rows.at(-1));
      } finally {
        await database.close();
      }
    }
  }
  await fake.close();
  console.log(`\nload average at end: ${load()}; ms as p50 / p95:\n`);
  console.log('| database | LLM | debounce | turns | receiveProspectMessage (store + schedule) | message in → send request, minus debounce |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
