/**
 * Benchmark of the analytics API (GET /api/admin/analytics/funnel, /speed, /outcomes, /cost, /handoffs and
 * /follow-ups, issue 26) on PostgreSQL, and of what its triggers on messages add to storing a message. Not part of `npm test`.
 *
 *   node --import tsx bench/analytics.ts
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); the script creates `sa_bench_analytics`,
 * generates BENCH_CONVERSATIONS conversations (default 1,000,000) with 10 messages each through INSERT … SELECT
 * generate_series (the message triggers are switched off for the bulk load and the migrations' backfill statements
 * run instead, as they would on an existing database), then times the real service functions and drops the
 * database (BENCH_KEEP=1 keeps and reuses it).
 */
import { execSync } from 'node:child_process';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { funnel, speed } from '../apps/server/src/modules/analytics/analytics.service.ts';
import { cost } from '../apps/server/src/modules/analytics/cost.ts';
import { followUpFigures, handoffFigures } from '../apps/server/src/modules/analytics/handoffs.ts';
import { outcomes } from '../apps/server/src/modules/analytics/outcomes.ts';
import { insertMessage } from '../apps/server/src/conversations/conversation-store.ts';
import type { Actor, AppContext } from '../apps/server/src/context.ts';
import { analyticsQuery } from '../packages/shared/src/schemas/analytics.ts';
import { loadAverage, percentile, pgQuery, rowsOf, seedBenchBase, time, timeRuns, withBenchDatabase } from './support/pg-bench.ts';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 1_000_000);
const MESSAGES_PER_CONVERSATION = 10;
const ACCOUNTS = 50;
const TYPES = 20;
/** BENCH_DB_NAME lets two runs (e.g. two worktrees) keep separate databases. */
const DB_NAME = process.env.BENCH_DB_NAME ?? 'sa_bench_analytics';
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const INSERTS = Number(process.env.BENCH_INSERTS ?? 2000);

async function generate(url: string) {
  await pgQuery(url, async (q) => {
    const [{ n }] = (await q('select count(*)::int as n from conversations')).rows;
    if (n === CONVERSATIONS) return console.log(`reusing ${n} conversations`);
    console.log(`generating ${CONVERSATIONS} conversations, ${CONVERSATIONS * MESSAGES_PER_CONVERSATION} messages`);
    await seedBenchBase(q, { types: TYPES, accounts: ACCOUNTS, prospects: 200_000 });
    await q(`insert into user_messaging_accounts (user_id, messaging_account_id)
             select u.id, a.id from users u, (select id from messaging_accounts order by id limit 5) a where u.role = 'NORMAL'`);
    // Phases 0..3 spread, some -2/-1/9999; the trigger sets max_phase on insert.
    await time('conversations', () =>
      q(`insert into conversations (phase, conversation_type_id, messages_count, last_message_date, prospect_id, messaging_account_id, created_at)
         select case when h % 100 < 5 then -2 when h % 100 < 8 then -1 when h % 100 < 10 then 9999 else (h / 100) % 4 end,
                (select min(id) from conversation_types) + (h / 7) % ${TYPES}, ${MESSAGES_PER_CONVERSATION},
                timestamptz '2024-01-01' + i * interval '60 seconds' + interval '10 minutes', p.id, p.messaging_account_id,
                timestamptz '2024-01-01' + i * interval '60 seconds'
         from (select i, h, case when h % 5 = 0 then null else (select min(id) from prospects) + (h / 29) % 200000 end as prospect_id
               from (select i, abs(hashint4(i)) as h from generate_series(1, ${CONVERSATIONS}) i) r) s
         left join prospects p on p.id = s.prospect_id order by i`),
    );
    await time('messages (triggers off, backfill after)', async () => {
      await q(`alter table messages disable trigger user`);
      await q(`insert into messages (conversation_id, role, message, date_sent, written_by_human)
               select c.id, case when m % 2 = 1 then 'PROSPECT' else 'AGENT' end, 'Bench message ' || m,
                      c.created_at + (m * interval '1 minute') + ((abs(hashint4(c.id)) % 90) * interval '1 second') * (m % 2 - 1) * -1,
                      m = 2 and c.id % 10 = 0
               from conversations c, generate_series(1, ${MESSAGES_PER_CONVERSATION}) m`);
      await q(`alter table messages enable trigger user`);
      await q(`update conversations c set first_prospect_message_at = m.first
               from (select conversation_id, min(date_sent) as first from messages where role = 'PROSPECT' group by conversation_id) m
               where m.conversation_id = c.id`);
      await q(`update conversations c set first_reply_at = r.date_sent, first_reply_by_human = r.written_by_human
               from (select distinct on (m.conversation_id) m.conversation_id, m.date_sent, m.written_by_human
                     from messages m join conversations c2 on c2.id = m.conversation_id
                     where m.role = 'AGENT' and c2.first_prospect_message_at is not null and m.date_sent >= c2.first_prospect_message_at
                     order by m.conversation_id, m.date_sent, m.id) r
               where r.conversation_id = c.id`);
    });
    // Hand-offs as migration "handoff-follow-up-triggers" backfills them (a take-over at the first message a
    // person wrote, 10 % of conversations), plus 5 % asked for by the agent, half of them answered; follow-ups on
    // 20 % of conversations (1–2 each), a third of them answered by the prospect.
    await time('hand-offs and follow-ups', async () => {
      await q(`insert into handoffs (conversation_id, reason, handed_at, answered_at)
               select m.conversation_id, 'TAKEN_OVER', min(m.date_sent), min(m.date_sent) from messages m
               where m.role = 'AGENT' and m.written_by_human group by m.conversation_id`);
      await q(`insert into handoffs (conversation_id, reason, handed_at, answered_at)
               select id, case when id % 3 = 0 then 'NOT_IN_KNOWLEDGE' else 'HUMAN_REQUESTED' end, created_at + interval '5 minutes',
                      case when id % 2 = 0 then created_at + interval '5 minutes' + (id % 3600) * interval '1 second' end
               from conversations where phase = -2`);
      await q(`insert into follow_ups (conversation_id, sent_at, replied_at)
               select c.id, c.created_at + n * interval '1 day', case when (c.id + n) % 3 = 0 then c.created_at + n * interval '1 day' + interval '1 hour' end
               from conversations c, generate_series(1, 2) n where c.id % 5 = 0 and (n = 1 or c.id % 2 = 0)`);
    });
    await time('vacuum analyze', () => q('vacuum analyze'));
  });
}

await withBenchDatabase(DB_NAME, async (database, url) => {
  // On a kept database built before migration "analytics-monthly-triggers", this includes its one-time backfill.
  console.log(`migrated in ${(performance.now() / 1000).toFixed(1)} s since start`);
  await generate(url);
  // BENCH_GENERATE_ONLY=1 (with BENCH_KEEP=1): build the database now, time it in a later run.
  if (process.env.BENCH_GENERATE_ONLY === '1') return;
  // config: the cost figure reads the price list (PRICING_FILE unset: the bundled one).
  const ctx = { db: database.db, config: {} } as unknown as AppContext;
  const rows = <T>(text: string) => rowsOf<T>(database, text);
  const [{ id: adminId }] = await rows<{ id: number }>(`select id from users where role = 'ADMIN'`);
  const [{ id: normalId }] = await rows<{ id: number }>(`select id from users where role = 'NORMAL'`);
  const adminActor: Actor = { id: adminId, email: 'bench-admin@example.com', role: 'ADMIN' };
  const normalActor: Actor = { id: normalId, email: 'bench-normal@example.com', role: 'NORMAL' };
  const [{ type }] = await rows<{ type: number }>(`select min(id) + 3 as type from conversation_types`);
  const [{ last }] = await rows<{ last: string }>(`select max(created_at) as last from conversations`);
  const end = new Date(last);
  const daysBack = (d: number) => new Date(end.getTime() - d * 86_400_000).toISOString();
  const q = (from: string, extra: Record<string, string> = {}) =>
    analyticsQuery.parse({ conversationType: String(type), from, to: end.toISOString(), ...extra });
  // "rows": the conversations only, as before the analytics_monthly rollup (an always-true `extra` skips the rollup;
  // exactLimit Infinity, the exact percentiles); timed interleaved with the default path in the same run.
  const rowsOnly = sql`true`;
  const exact = { exactLimit: Number.POSITIVE_INFINITY };
  const scenarios: { name: string; run: () => Promise<unknown> }[] = [
    { name: 'funnel, last 30 days', run: () => funnel(ctx, adminActor, q(daysBack(30))) },
    { name: 'funnel, all time (rows)', run: () => funnel(ctx, adminActor, q('2000-01-01'), rowsOnly) },
    { name: 'funnel, all time', run: () => funnel(ctx, adminActor, q('2000-01-01')) },
    { name: 'funnel, all time, channel INSTAGRAM (rows)', run: () => funnel(ctx, adminActor, q('2000-01-01', { channel: 'INSTAGRAM' }), rowsOnly) },
    { name: 'funnel, all time, channel INSTAGRAM', run: () => funnel(ctx, adminActor, q('2000-01-01', { channel: 'INSTAGRAM' })) },
    { name: 'funnel, all time, NORMAL (5 of 50 accounts) (rows)', run: () => funnel(ctx, normalActor, q('2000-01-01'), rowsOnly) },
    { name: 'funnel, all time, NORMAL (5 of 50 accounts)', run: () => funnel(ctx, normalActor, q('2000-01-01')) },
    { name: 'speed, last 30 days', run: () => speed(ctx, adminActor, q(daysBack(30))) },
    { name: 'speed, all time (rows, exact)', run: () => speed(ctx, adminActor, q('2000-01-01'), exact) },
    { name: 'speed, all time', run: () => speed(ctx, adminActor, q('2000-01-01')) },
    { name: 'speed, all time, channel INSTAGRAM (rows, exact)', run: () => speed(ctx, adminActor, q('2000-01-01', { channel: 'INSTAGRAM' }), exact) },
    { name: 'speed, all time, channel INSTAGRAM', run: () => speed(ctx, adminActor, q('2000-01-01', { channel: 'INSTAGRAM' })) },
    { name: 'speed, all time, NORMAL (5 of 50 accounts)', run: () => speed(ctx, normalActor, q('2000-01-01')) },
    { name: 'outcomes, last 30 days', run: () => outcomes(ctx, adminActor, q(daysBack(30))) },
    { name: 'outcomes, all time', run: () => outcomes(ctx, adminActor, q('2000-01-01')) },
    { name: 'cost, last 30 days', run: () => cost(ctx, adminActor, q(daysBack(30))) },
    { name: 'cost, all time', run: () => cost(ctx, adminActor, q('2000-01-01')) },
    { name: 'hand-offs, last 30 days', run: () => handoffFigures(ctx, adminActor, q(daysBack(30))) },
    { name: 'hand-offs, all time', run: () => handoffFigures(ctx, adminActor, q('2000-01-01')) },
    { name: 'hand-offs, all time, NORMAL (5 of 50 accounts)', run: () => handoffFigures(ctx, normalActor, q('2000-01-01')) },
    { name: 'follow-ups, last 30 days', run: () => followUpFigures(ctx, adminActor, q(daysBack(30))) },
    { name: 'follow-ups, all time', run: () => followUpFigures(ctx, adminActor, q('2000-01-01')) },
  ];

  console.log(`load average before: ${loadAverage()} on ${os.cpus().length} cores; ${execSync('uptime').toString().trim()}`);
  console.log('\n| scenario | p50 ms | p95 ms | started / withProspectMessage / follow-ups sent |\n|---|---:|---:|---:|');
  // BENCH_ONLY=<regex>: only the scenarios whose name matches (e.g. "funnel|speed").
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
  for (const scenario of scenarios.filter((sc) => !only || only.test(sc.name))) {
    const { timings, last } = await timeRuns(RUNS, () => scenario.run());
    const r = last as { started?: number; withProspectMessage?: number; conversations?: number; total?: { conversations?: number; sent?: number }; days?: unknown[] };
    const size = r.started ?? r.withProspectMessage ?? r.conversations ?? r.total?.conversations ?? r.total?.sent ?? `${r.days?.length} days`;
    console.log(`| ${scenario.name} | ${percentile(timings, 50).toFixed(1)} | ${percentile(timings, 95).toFixed(1)} | ${size} |`);
  }

  // What the triggers add to storing a message: insertMessage (the store's one statement) on fresh
  // conversations, alternating PROSPECT / AGENT (every tenth AGENT one written by a person, so the hand-off
  // trigger fires too), with the message triggers (firsts, hand-offs, follow-ups) on and off.
  const [{ base }] = await rows<{ base: number }>(`select min(id)::int as base from conversations`);
  const measure = async (label: string) => {
    const timings: number[] = [];
    for (let i = 0; i < INSERTS; i++) {
      const conversationId = base + ((i * 7919) % CONVERSATIONS);
      const start = performance.now();
      await insertMessage(database.db, { conversationId, role: i % 2 === 0 ? 'PROSPECT' : 'AGENT', message: `turn ${i}`, writtenByHuman: i % 20 === 1 });
      timings.push(performance.now() - start);
    }
    timings.sort((a, b) => a - b);
    console.log(`| ${label} | ${percentile(timings, 50).toFixed(3)} | ${percentile(timings, 95).toFixed(3)} |`);
    return percentile(timings, 50);
  };
  if (process.env.BENCH_INSERTS === '0') return;
  console.log(`\n| storing a message (${INSERTS} inserts) | p50 ms | p95 ms |\n|---|---:|---:|`);
  await rows(`alter table messages disable trigger user`);
  const off = await measure('triggers off');
  await rows(`alter table messages enable trigger user`);
  const on = await measure('triggers on');
  await rows(`alter table messages disable trigger user`);
  const off2 = await measure('triggers off (again)');
  await rows(`alter table messages enable trigger user`);
  console.log(`\nadded p50 per stored message: ${(on - (off + off2) / 2).toFixed(3)} ms`);

  // What the analytics_monthly triggers (on conversations) add to a conversation's first exchange: creating it,
  // its first prospect message and the first reply (the only messages that move the rollup), with those
  // triggers on and off. The conversations made here are deleted again as they were made (with or without the
  // triggers), so the kept database's rollup stays a true count.
  const ROLLUP_TRIGGERS = ['conversations_analytics_monthly_insert_delete', 'conversations_analytics_monthly_update'];
  const rollupTriggers = (on: boolean) =>
    Promise.all(ROLLUP_TRIGGERS.map((name) => rows(`alter table conversations ${on ? 'enable' : 'disable'} trigger ${name}`)));
  let made: number[] = [];
  const forget = async (on: boolean) => {
    await rollupTriggers(on);
    if (made.length) await rows(`delete from conversations where id in (${made.join(',')})`);
    made = [];
  };
  const exchange = async (label: string) => {
    const timings: number[] = [];
    for (let i = 0; i < INSERTS / 4; i++) {
      const start = performance.now();
      const [{ id }] = await rows<{ id: number }>(`insert into conversations (phase, conversation_type_id) values (0, ${type}) returning id`);
      await insertMessage(database.db, { conversationId: id, role: 'PROSPECT', message: 'first' });
      await insertMessage(database.db, { conversationId: id, role: 'AGENT', message: 'reply' });
      timings.push(performance.now() - start);
      made.push(id);
    }
    timings.sort((a, b) => a - b);
    console.log(`| ${label} | ${percentile(timings, 50).toFixed(3)} | ${percentile(timings, 95).toFixed(3)} |`);
    return percentile(timings, 50);
  };
  console.log(`\n| a new conversation's first exchange (${INSERTS / 4}: create, prospect message, reply) | p50 ms | p95 ms |\n|---|---:|---:|`);
  await rollupTriggers(false);
  const exOff = await exchange('rollup triggers off');
  await forget(false);
  await rollupTriggers(true);
  const exOn = await exchange('rollup triggers on');
  await forget(true);
  await rollupTriggers(false);
  const exOff2 = await exchange('rollup triggers off (again)');
  await forget(false);
  await rollupTriggers(true);
  console.log(`\nadded p50 per first exchange: ${(exOn - (exOff + exOff2) / 2).toFixed(3)} ms`);
  console.log(`load average after: ${loadAverage()}; ${execSync('uptime').toString().trim()}`);
});
