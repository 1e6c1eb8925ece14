/**
 * Helpers for the PostgreSQL benchmarks that bulk-load a database of their own and time the real service
 * functions against it (bench/conversation-list.ts, bench/analytics.ts).
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase } from '../../apps/server/src/db/client.ts';
import { adminQuery, withDatabase } from '../../apps/server/src/test/test-database.ts';

export const benchBaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** BENCH_KEEP=1 keeps (and reuses) the generated database between runs. */
export const keepBenchDatabase = process.env.BENCH_KEEP === '1';

/** Runs `fn`, prints how long it took in seconds under `label`. */
export async function time<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await fn();
  console.log(`  ${label}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

/** The p-th percentile of ascending `sorted`. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs `run(i)` 3 times to warm the cache and then `runs` times, and answers those timings (ms, ascending) and the last result. */
export async function timeRuns<T>(runs: number, run: (i: number) => Promise<T>): Promise<{ timings: number[]; last: T }> {
  const timings: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs + 3; i++) {
    const start = performance.now();
    last = await run(i);
    if (i >= 3) timings.push(performance.now() - start);
  }
  timings.sort((a, b) => a - b);
  return { timings, last: last as T };
}

/** The 1/5/15-minute load averages, as "a / b / c". */
export const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');

/** `select` rows through drizzle's executor, for the bench's own lookups. */
export const rowsOf = async <T>(database: Database, text: string) =>
  ((await database.db.execute(sql.raw(text))) as unknown as { rows: T[] }).rows;

/**
 * Creates database `name` on BENCH_DATABASE_URL (fresh unless BENCH_KEEP=1 and it exists), migrates it, runs
 * `fn` with it and its URL, then closes it and drops it (unless kept).
 */
export async function withBenchDatabase(name: string, fn: (database: Database, url: string) => Promise<void>) {
  const admin = (text: string) => adminQuery(benchBaseUrl, text);
  const exists = await pgQuery(benchBaseUrl, (q) => q(`select 1 from pg_database where datname = '${name}'`).then((r) => r.rowCount));
  if (exists && !keepBenchDatabase) await admin(`drop database ${name} with (force)`);
  if (!exists || !keepBenchDatabase) await admin(`create database ${name}`);
  const url = withDatabase(benchBaseUrl, name);
  const database = openDatabase({ url, poolSize: 4 });
  try {
    await database.migrate();
    await fn(database, url);
  } finally {
    await database.close();
    if (!keepBenchDatabase) await admin(`drop database if exists ${name} with (force)`);
  }
}

/** Runs `fn` with a plain pg client's query on `url` (bulk SQL without a pool), then ends the client. */
export async function pgQuery<T>(url: string, fn: (q: (text: string) => Promise<pg.QueryResult>) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn((text) => client.query(text));
  } finally {
    await client.end();
  }
}

/**
 * The rows every list benchmark starts from: an ADMIN (bench-admin@example.com) and a NORMAL user
 * (bench-normal@example.com, granted nothing yet), `types` playbooks with phases 0..2, `accounts` Instagram
 * accounts and `prospects` prospects spread over them.
 */
export async function seedBenchBase(q: (text: string) => Promise<unknown>, n: { types: number; accounts: number; prospects: number }) {
  await q(`insert into users (email, role) values ('bench-admin@example.com', 'ADMIN'), ('bench-normal@example.com', 'NORMAL')`);
  await q(`insert into conversation_types (title, role_prompt, error_prompt)
           select 'Bench playbook ' || i, 'role', 'error' from generate_series(1, ${n.types}) i`);
  await q(`insert into conversation_phases (conversation_type_id, index, prompt, transition_prompt)
           select t.id, p, 'phase ' || p, 'next' from conversation_types t, generate_series(0, 2) p`);
  await q(`insert into messaging_accounts (type, access_token_encrypted, page_id, page_name)
           select 'INSTAGRAM', 'x', 'page-' || i, 'Bench page ' || i from generate_series(1, ${n.accounts}) i`);
  // Names from a few first names and 50,000 surnames; every fifth prospect an SMS-style phone number (search).
  await q(`insert into prospects (messaging_account_id, external_id, name)
           select (select min(id) from messaging_accounts) + (i % ${n.accounts}),
                  case when i % 5 = 0 then '+1555' || lpad(i::text, 7, '0') else 'ext-' || i end,
                  (array['Ada', 'Grace', 'Linus', 'Margaret', 'Alan', 'Barbara', 'Ken', 'Dennis'])[1 + i % 8] || ' Surname' || (i % 50000)
           from generate_series(1, ${n.prospects}) i`);
}
