/**
 * Benchmark of the conversation list query (GET /api/conversation/list) on PostgreSQL with 1,000,000
 * conversations and 10,000,000 messages. Not part of `npm test`.
 *
 *   node --import tsx bench/conversation-list.ts
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the server to
 * use; the script creates the database `sa_bench` on it, generates the data with INSERT … SELECT
 * generate_series, runs every filter and both orders, prints p50/p95, and drops the database.
 * BENCH_KEEP=1 keeps (and reuses) `sa_bench` between runs; BENCH_CONVERSATIONS scales the data down;
 * BENCH_ONLY=<text> runs only the scenarios whose name contains it (e.g. BENCH_ONLY=search); BENCH_DB_NAME names
 * the database (default sa_bench).
 * It calls the real service function (listConversations), so it measures the code the route runs.
 */
import os from 'node:os';
import type { Actor, AppContext } from '../apps/server/src/context.ts';
import { listConversations } from '../apps/server/src/modules/conversations/conversations.service.ts';
import { conversationListQuery } from '../packages/shared/src/schemas/conversation.ts';
import { loadAverage, percentile, pgQuery, rowsOf, seedBenchBase, time, timeRuns, withBenchDatabase } from './support/pg-bench.ts';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 1_000_000);
const MESSAGES_PER_CONVERSATION = 10;
const ACCOUNTS = 50;
const PROSPECTS = 200_000;
const TYPES = 20;
// BENCH_DB_NAME: a database of one's own when several engineers bench on the same server.
const DB_NAME = process.env.BENCH_DB_NAME ?? 'sa_bench';
const RUNS = Number(process.env.BENCH_RUNS ?? 40);

async function generate(url: string) {
  await pgQuery(url, async (q) => {
    const [{ n }] = (await q('select count(*)::int as n from conversations')).rows;
    if (n === CONVERSATIONS) {
      console.log(`reusing ${n} conversations in ${DB_NAME}`);
      return;
    }
    if (n > 0) await q('truncate users, conversation_types, messaging_accounts, prospects, conversations, messages restart identity cascade');
    console.log(`generating ${CONVERSATIONS} conversations, ${CONVERSATIONS * MESSAGES_PER_CONVERSATION} messages`);
    await time('users, accounts, types, prospects', async () => {
      await seedBenchBase(q, { types: TYPES, accounts: ACCOUNTS, prospects: PROSPECTS });
      await q(`insert into user_messaging_accounts (user_id, messaging_account_id)
               select u.id, (select min(id) from messaging_accounts) from users u where u.email = 'bench-normal@example.com'`);
    });
    // Deterministic pseudo-random spreads (hash of i), so every run builds the same data.
    await time('conversations', () =>
      q(`insert into conversations (phase, conversation_type_id, rating, recording_duration, recording_url, messages_count,
                                    last_message_date, prospect_id, messaging_account_id, created_at)
         select
           case when h % 100 < 3 then -3 when h % 100 < 6 then -2 when h % 100 < 8 then -1 when h % 100 < 10 then 9999
                else (h / 100) % 4 end,
           (select min(id) from conversation_types) + (h / 7) % ${TYPES},
           case when (h / 13) % 2 = 0 then null else 1 + (h / 17) % 5 end,
           case when (h / 19) % 10 = 0 then 10 + (h / 23) % 3600 end,
           case when (h / 19) % 10 = 0 then 'https://recordings.example.com/' || i || '.mp3' end,
           ${MESSAGES_PER_CONVERSATION},
           timestamptz '2023-01-01' + (i * interval '60 seconds') + ((h % 43200) * interval '60 seconds'),
           p.id,
           p.messaging_account_id,
           timestamptz '2023-01-01' + (i * interval '60 seconds')
         from (select i, h, case when h % 5 = 0 then null else (select min(id) from prospects) + (h / 29) % ${PROSPECTS} end as prospect_id
               from (select i, abs(hashint4(i)) as h from generate_series(1, ${CONVERSATIONS}) i) r) s
         left join prospects p on p.id = s.prospect_id
         order by i`),
    );
    // The secondary index is rebuilt once after the bulk load instead of being maintained row by row.
    const idx = (await q(`select indexdef from pg_indexes where tablename = 'messages' and indexdef like '%(conversation_id, date_sent, id)%'`)).rows;
    await time('messages', async () => {
      await q(`drop index if exists messages_conversation_id_date_sent_id_index`);
      await q(`insert into messages (conversation_id, role, message, date_sent)
               select c.id, case when m % 2 = 0 then 'PROSPECT' else 'AGENT' end,
                      'Bench message ' || m || ' about widget' || (abs(hashint4(c.id * 16 + m)) % 100000),
                      c.last_message_date - ((${MESSAGES_PER_CONVERSATION} - m) * interval '1 minute')
               from conversations c, generate_series(1, ${MESSAGES_PER_CONVERSATION}) m`);
    });
    await time('messages index', async () => {
      for (const row of idx) await q(row.indexdef);
    });
    await time('vacuum analyze', () => q('vacuum analyze'));
  });
}

const started = performance.now();
await withBenchDatabase(DB_NAME, async (database, url) => {
  await generate(url);
  const generation = (performance.now() - started) / 1000;
  const ctx = { db: database.db, config: { CONVERSATION_LIST_COUNT_BUDGET_MS: Number(process.env.BENCH_COUNT_BUDGET_MS ?? 30) } } as unknown as AppContext;

  const pick = <T>(text: string) => rowsOf<T>(database, text);
  const [adminUser] = await pick<{ id: number }>(`select id from users where email = 'bench-admin@example.com'`);
  const [normalUser] = await pick<{ id: number }>(`select id from users where email = 'bench-normal@example.com'`);
  // A NORMAL user granted 5 of the 50 accounts (created here too, so a kept database gains it).
  await pick(`insert into users (email, role) values ('bench-normal5@example.com', 'NORMAL') on conflict (email) do nothing`);
  await pick(`insert into user_messaging_accounts (user_id, messaging_account_id)
              select u.id, a.id from users u, (select id from messaging_accounts order by id limit 5) a
              where u.email = 'bench-normal5@example.com' on conflict do nothing`);
  const [normal5User] = await pick<{ id: number }>(`select id from users where email = 'bench-normal5@example.com'`);
  const adminActor: Actor = { id: adminUser.id, email: 'bench-admin@example.com', role: 'ADMIN' };
  const normalActor: Actor = { id: normalUser.id, email: 'bench-normal@example.com', role: 'NORMAL' };
  const normal5Actor: Actor = { id: normal5User.id, email: 'bench-normal5@example.com', role: 'NORMAL' };
  const sampleUuids = (await pick<{ uuid: string }>(`select uuid from conversations tablesample system (1) limit ${RUNS}`)).map((r) => r.uuid);
  const sampleProspects = (await pick<{ uuid: string }>(`select uuid from prospects tablesample system (5) limit ${RUNS}`)).map((r) => r.uuid);
  const [{ type }] = await pick<{ type: number }>(`select min(id) + 3 as type from conversation_types`);

  type Scenario = { name: string; actor?: Actor; query: (i: number) => Record<string, string | number> };
  const scenarios: Scenario[] = [
    { name: 'no filter, page 1..5', query: (i) => ({ page: 1 + (i % 5) }) },
    { name: 'no filter, limit 100', query: () => ({ limit: 100 }) },
    { name: 'no filter, page 100', query: () => ({ page: 100 }) },
    { name: 'uuid (exact)', query: (i) => ({ uuid: sampleUuids[i % sampleUuids.length] }) },
    { name: 'uuid (prefix, 6 chars)', query: (i) => ({ uuid: sampleUuids[i % sampleUuids.length].slice(0, 6) }) },
    { name: 'prospectUuid', query: (i) => ({ prospectUuid: sampleProspects[i % sampleProspects.length] }) },
    { name: 'phase 1 (common)', query: () => ({ phase: 1 }) },
    { name: 'phase -1 (2 %)', query: () => ({ phase: -1 }) },
    { name: 'conversationType', query: () => ({ conversationType: type }) },
    { name: 'minRating 4', query: () => ({ minRating: 4 }) },
    { name: 'rating 2..3', query: () => ({ minRating: 2, maxRating: 3 }) },
    { name: 'recording 600..1200 s', query: () => ({ minRecordingDuration: 600, maxRecordingDuration: 1200 }) },
    { name: 'hasRecording=true', query: () => ({ hasRecording: 'true' }) },
    { name: 'hasRecording=false', query: () => ({ hasRecording: 'false' }) },
    { name: 'type + phase + minRating + hasRecording', query: () => ({ conversationType: type, phase: 2, minRating: 3, hasRecording: 'true' }) },
    { name: 'NORMAL user (1 of 50 accounts)', actor: normalActor, query: (i) => ({ page: 1 + (i % 5) }) },
    { name: 'NORMAL user + phase 0', actor: normalActor, query: () => ({ phase: 0 }) },
    { name: 'type + phase', query: () => ({ conversationType: type, phase: 2 }) },
    { name: 'minRating 4 + hasRecording', query: () => ({ minRating: 4, hasRecording: 'true' }) },
    { name: 'phase -1 + rating 5 + recording ≥ 60 s', query: () => ({ phase: -1, minRating: 5, minRecordingDuration: 60 }) },
    { name: 'NORMAL user, page 100', actor: normalActor, query: () => ({ page: 100 }) },
    { name: 'NORMAL user + type + minRating 3', actor: normalActor, query: () => ({ conversationType: type, minRating: 3 }) },
    { name: 'NORMAL user + hasRecording', actor: normalActor, query: () => ({ hasRecording: 'true' }) },
    { name: 'NORMAL user + phase 3 + minRating 4 + hasRecording', actor: normalActor, query: () => ({ phase: 3, minRating: 4, hasRecording: 'true' }) },
    { name: 'NORMAL user (5 of 50 accounts)', actor: normal5Actor, query: (i) => ({ page: 1 + (i % 5) }) },
    { name: 'NORMAL user (5 accounts) + phase 2', actor: normal5Actor, query: () => ({ phase: 2 }) },
    // Search (issue 24): q over message text, prospect names/handles, contacts and phone digits.
    { name: 'search: a rare word in messages (~100 hits)', query: (i) => ({ q: `widget${(i * 7919) % 100000}` }) },
    { name: 'search: a word prefix (widget12*, ~1,100 words)', query: (i) => ({ q: `widget${10 + (i % 90)}` }) },
    { name: 'search: a prospect surname', query: (i) => ({ q: `surname${(i * 37) % 50000}` }) },
    { name: 'search: first name + surname', query: (i) => ({ q: `Ada surname${(i * 8) % 50000}` }) },
    { name: 'search: phone digits (7)', query: (i) => ({ q: `${String(5 * (1 + ((i * 331) % 40000))).padStart(7, '0')}` }) },
    { name: 'search: a word in every message ("bench")', query: () => ({ q: 'bench' }) },
    { name: 'search: no match', query: (i) => ({ q: `nothing${i}` }) },
    { name: 'NORMAL user + search: a rare word', actor: normalActor, query: (i) => ({ q: `widget${(i * 7919) % 100000}` }) },
    { name: 'NORMAL user + search: a surname', actor: normalActor, query: (i) => ({ q: `surname${(i * 37) % 50000}` }) },
  ];

  console.log(`load average (1/5/15 min) before the runs: ${loadAverage()} on ${os.cpus().length} cores`);
  const results: { name: string; order: string; p50: number; p95: number; rows: number; totalPages: string }[] = [];
  const only = process.env.BENCH_ONLY;
  for (const scenario of scenarios.filter((sc) => !only || sc.name.includes(only))) {
    for (const orderBy of ['latestMessageDate', 'latestConversations']) {
      const { timings, last } = await timeRuns(RUNS, (i) =>
        listConversations(ctx, scenario.actor ?? adminActor, conversationListQuery.parse({ ...scenario.query(i), orderBy })),
      );
      results.push({
        name: scenario.name,
        order: orderBy,
        p50: percentile(timings, 50),
        p95: percentile(timings, 95),
        rows: last?.conversations.length ?? 0,
        totalPages: `${last?.totalPages}${last?.totalPagesIsLowerBound ? '+' : ''}`,
      });
      const r = results[results.length - 1];
      console.log(`${r.name.padEnd(44)} ${r.order.padEnd(20)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms  rows ${r.rows}  pages ${r.totalPages}`);
    }
  }
  console.log('\n| scenario | order | p50 ms | p95 ms | rows | totalPages |\n|---|---|---:|---:|---:|---:|');
  for (const r of results) console.log(`| ${r.name} | ${r.order} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.rows} | ${r.totalPages} |`);
  console.log(`\nload average (1/5/15 min) after the runs: ${loadAverage()} on ${os.cpus().length} cores`);
  console.log(`data generation + migrations: ${generation.toFixed(0)} s; ${RUNS} runs per scenario after 3 warm-up runs`);
});
