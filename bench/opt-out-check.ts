/**
 * The cost of the opt-out check (issue 23): every agent turn, follow-up, call and delivery attempt looks the
 * recipient's address up in `do_not_contact` (conversations/opt-out.ts `doNotContactOf`, the delivery job's
 * check). Not part of `npm test`.
 *
 *   node --import tsx bench/opt-out-check.ts                 # PGlite in memory
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_optout node --import tsx bench/opt-out-check.ts
 *
 * Seeds ROWS opt-outs (a third of them cleared, a tenth "all channels" rows pointing to an origin), then times
 * LOOKUPS checks of random addresses — half opted out, half never seen — one after another, as the jobs do.
 */
import { sql } from 'drizzle-orm';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { doNotContactOf } from '../apps/server/src/conversations/opt-out.ts';

const ROWS = Number(process.env.ROWS ?? 100_000);
const LOOKUPS = Number(process.env.LOOKUPS ?? 5_000);
const url = process.env.BENCH_DATABASE_URL;
const database = openDatabase(url ? { url } : { pgliteDir: 'memory://' });
await database.migrate();
const db = database.db;
await db.execute(sql`truncate do_not_contact`);
const phone = (i: number) => `+1555${String(i).padStart(7, '0')}`;
await db.execute(sql`
  insert into do_not_contact (address, channel, how, since, cleared_at, origin_id)
  select '+1555' || lpad(i::text, 7, '0'), case when i % 10 = 0 then 'all' else 'sms' end, 'keyword "STOP"',
    now() - (i || ' seconds')::interval, case when i % 3 = 0 then now() else null end, case when i % 10 = 0 then i - 1 else null end
  from generate_series(1, ${ROWS}) as i`);
await db.execute(sql`analyze do_not_contact`);

// Warm up the statement and the cache as a running server has them.
for (let i = 0; i < 200; i += 1) await doNotContactOf(db, phone(1 + Math.floor(Math.random() * ROWS)));
const times: number[] = [];
let found = 0;
for (let i = 0; i < LOOKUPS; i += 1) {
  const address = i % 2 === 0 ? phone(1 + Math.floor(Math.random() * ROWS)) : phone(ROWS + 1 + i);
  const started = performance.now();
  if (await doNotContactOf(db, address)) found += 1;
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
const mean = (times.reduce((a, b) => a + b, 0) / times.length).toFixed(3);
console.log(
  JSON.stringify({ engine: url ? 'postgresql' : 'pglite', rows: ROWS, lookups: LOOKUPS, optedOutFound: found, meanMs: mean, p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }),
);
await database.close();
