/**
 * Many conversations at once against a slow LLM: 50 (then 200) web chats plus 50 channel prospects write at
 * the same moment. Measures, per database:
 *  - one lone conversation's turn (the reference), then under load the time from each prospect's message to
 *    its reply being stored (p50 / p95 / max, and how many were answered before the deadline);
 *  - while those turns are in flight: a person's reply from the inbox until the channel fake receives it, and
 *    a signed webhook event until its inbox row is processed (p95 of 10 probes each, one a second);
 *  - on PostgreSQL the pool: the most queries ever waiting for a connection, and jobs failed on a pool timeout.
 * Not part of `npm test`; loopback only, bounded by BENCH_DEADLINE_S per scenario.
 *
 *   node --import tsx bench/concurrent-turns.ts
 *
 * The engine runs in this process the way a server runs it (buildApp + the app's own started JobRunner, no
 * drain()). Web chats go through receiveProspectMessage (what the chat route calls); channel prospects are
 * signed Messenger webhooks posted to /api/meta-api/webhook (app.inject), replies sent to a loopback Graph
 * fake. The LLM is the loopback OpenAI-compatible fake (apps/server/src/test/fakes/openai-fake.ts) answering
 * every call after BENCH_CALL_MS (1500) ms, every BENCH_TAIL_EVERY-th (10th) call after BENCH_TAIL_MS (8000)
 * ms: the 10 % tail. A turn makes two calls (transition + draft).
 *
 * Environment: BENCH_DBS (pglite,pg), BENCH_WEB (50,200: one scenario each), BENCH_CHANNEL (50),
 * BENCH_DEADLINE_S (90), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres; a fresh database
 * per scenario, dropped after), BENCH_POOL (10, the server's default pool size), JOB_CONCURRENCY as the server.
 */
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app.ts';
import { benchConfig } from './support/bench-config.ts';
import { receiveProspectMessage, sendHumanMessage } from '../apps/server/src/agent/agent.service.ts';
import { type Database, openDatabase } from '../apps/server/src/db/client.ts';
import { buildPlaybook } from '../apps/server/src/test/agent-factories.ts';
import { buildChannelAccount } from '../apps/server/src/test/channel-factories.ts';
import { buildConversation } from '../apps/server/src/test/conversation-factories.ts';
import { buildAdmin } from '../apps/server/src/test/factories.ts';
import { startMetaGraphFake } from '../apps/server/src/test/fakes/meta-graph-fake.ts';
import { OpenAiFake } from '../apps/server/src/test/fakes/openai-fake.ts';
import { adminQuery as adminQueryOn, withDatabase } from '../apps/server/src/test/test-database.ts';

const DBS = (process.env.BENCH_DBS ?? 'pglite,pg').split(',');
const WEB = (process.env.BENCH_WEB ?? '50,200').split(',').map(Number);
const CHANNEL = Number(process.env.BENCH_CHANNEL ?? 50);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_S ?? 90) * 1000;
const CALL_MS = Number(process.env.BENCH_CALL_MS ?? 1500);
const TAIL_MS = Number(process.env.BENCH_TAIL_MS ?? 8000);
const TAIL_EVERY = Number(process.env.BENCH_TAIL_EVERY ?? 10);
const POOL = Number(process.env.BENCH_POOL ?? 10);
const PROBES = 10;
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const APP_SECRET = 'bench-meta-app-secret';
const PAGE_ID = 'bench-page-1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const s = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '—');

async function openBenchDatabase(kind: string): Promise<Database> {
  if (kind === 'pglite') {
    const database = openDatabase({ pgliteDir: 'memory://' });
    await database.migrate();
    return database;
  }
  const name = `sa_bench_turns_${process.pid}_${Date.now()}`;
  await adminQuery(`create database ${name}`);
  const database = openDatabase({ url: withDatabase(pgUrl, name), poolSize: POOL });
  await database.migrate();
  return {
    ...database,
    close: async () => {
      await database.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

const adminQuery = (text: string) => adminQueryOn(pgUrl, text);

function metaPayload(senderId: string, mid: string, text: string) {
  const timestamp = Date.now();
  return { object: 'page', entry: [{ id: PAGE_ID, time: timestamp, messaging: [{ sender: { id: senderId }, recipient: { id: PAGE_ID }, timestamp, message: { mid, text } }] }] };
}

async function scenario(kind: string, web: number, channel: number, fake: OpenAiFake) {
  const graph = await startMetaGraphFake({ tokens: ['bench-page-token'] });
  const database = await openBenchDatabase(kind);
  const config = benchConfig({
    LOG_LEVEL: 'silent',
    META_APP_SECRET: APP_SECRET,
    META_GRAPH_URL: graph.url,
    INSTAGRAM_GRAPH_URL: graph.url,
    CHAT_RATE_LIMIT: '1000000',
    CHAT_CONVERSATION_LIMIT: '1000000',
    ...(process.env.JOB_CONCURRENCY ? { JOB_CONCURRENCY: process.env.JOB_CONCURRENCY } : {}),
    ...fake.env(),
  });
  const { app, ctx } = await buildApp({ config, database });
  await app.ready();
  ctx.jobs.start();
  const post = (payload: unknown) => {
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
    return app.inject({ method: 'POST', url: '/api/meta-api/webhook', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: body });
  };
  const count = async (query: ReturnType<typeof sql>) =>
    Number(((await ctx.db.execute(query)) as unknown as { rows: { n: number | string }[] }).rows[0].n);

  try {
    const type = await buildPlaybook(ctx, { config: { followUp: { delaysMinutes: [600], max: 1 } } });
    const account = await buildChannelAccount(ctx, { type: 'FACEBOOK', pageId: PAGE_ID, token: 'bench-page-token', conversationTypeId: type.id });
    const admin = await buildAdmin(ctx);
    const actor = { id: admin.id, email: admin.email, role: 'ADMIN' as const };

    // The lone turn: one conversation, nothing else running (no tail call).
    fake.delay = () => CALL_MS;
    const lone: number[] = [];
    for (let i = 0; i < 2; i++) {
      const conversation = await buildConversation(ctx, { conversationTypeId: type.id });
      const t0 = Date.now();
      await receiveProspectMessage(ctx, conversation.id, 'hello, what do you sell?');
      for (;;) {
        if ((await count(sql`select count(*)::int as n from messages where conversation_id = ${conversation.id} and role = 'AGENT'`)) > 0) break;
        await sleep(20);
      }
      lone.push(Date.now() - t0);
    }
    // Conversations a person will answer from the inbox while the load runs (answered once by the agent).
    fake.delay = () => 0;
    for (let i = 0; i < PROBES; i++) await post(metaPayload(`bench-target-${i}`, `m_target_${i}`, 'hi'));
    for (;;) {
      const answered = await count(sql`select count(distinct c.id)::int as n from conversations c join messages m on m.conversation_id = c.id and m.role = 'AGENT' where c.prospect_id is not null`);
      if (answered >= PROBES) break;
      await sleep(50);
    }
    const targets = ((await ctx.db.execute(sql`select id from conversations where prospect_id is not null order by id`)) as unknown as { rows: { id: number }[] }).rows.map((r) => r.id);
    const webConversations: number[] = [];
    for (let i = 0; i < web; i++) webConversations.push((await buildConversation(ctx, { conversationTypeId: type.id })).id);

    let call = 0;
    fake.delay = () => ((call += 1) % TAIL_EVERY === 0 ? TAIL_MS : CALL_MS);
    const pool = kind === 'pg' ? (ctx.db as unknown as { $client: pg.Pool }).$client : null;
    let maxWaiting = 0;
    const sampler = setInterval(() => (maxWaiting = Math.max(maxWaiting, pool?.waitingCount ?? 0)), 20);
    const load = loadavg()[0];

    // Everyone writes at the same moment.
    const started = Date.now();
    const sentAt = new Map<string, number>();
    const writes: Promise<unknown>[] = [];
    for (const id of webConversations) writes.push(receiveProspectMessage(ctx, id, 'hello, what do you sell?'));
    for (let i = 0; i < channel; i++) writes.push(post(metaPayload(`bench-prospect-${i}`, `m_load_${i}`, 'hello, what do you sell?')));
    await Promise.all(writes);

    // Probes, one a second while the turns run: a person's reply, and a webhook event of a new prospect.
    const personal: number[] = [];
    const webhooks: number[] = [];
    const probes: Promise<void>[] = [];
    for (let i = 0; i < PROBES; i++) {
      await sleep(1000);
      const text = `A person answers ${i}`;
      const t0 = Date.now();
      probes.push(
        (async () => {
          await sendHumanMessage(ctx, targets[i], text, actor);
          while (!graph.sends().some((send) => JSON.stringify(send.body).includes(text))) {
            if (Date.now() - t0 > DEADLINE_MS) return;
            await sleep(10);
          }
          personal.push(Date.now() - t0);
        })(),
      );
      const mid = `m_probe_${i}`;
      const w0 = Date.now();
      probes.push(
        (async () => {
          await post(metaPayload(`bench-probe-${i}`, mid, 'a question'));
          for (;;) {
            const done = await count(sql`select count(*)::int as n from webhook_inbox where processed_at is not null and payload::text like ${`%${mid}%`}`);
            if (done > 0) break;
            if (Date.now() - w0 > DEADLINE_MS) return;
            await sleep(20);
          }
          webhooks.push(Date.now() - w0);
        })(),
      );
    }
    await Promise.all(probes);

    // Wait for every reply, up to the deadline.
    const expected = web + channel;
    const loadReplies = sql`
      select c.id, c.prospect_id, min(m.date_sent) filter (where m.role = 'PROSPECT' and m.message = 'hello, what do you sell?') as asked,
             min(m.date_sent) filter (where m.role = 'AGENT' and m.date_sent >= ${new Date(started).toISOString()}::timestamptz) as answered
      from conversations c join messages m on m.conversation_id = c.id
      where c.id = any(${`{${webConversations.join(',')}}`}::int[]) or c.prospect_id in (select id from prospects where external_id like 'bench-prospect-%')
      group by c.id, c.prospect_id`;
    let rows: { asked: string | Date | null; answered: string | Date | null }[] = [];
    for (;;) {
      rows = ((await ctx.db.execute(loadReplies)) as unknown as { rows: typeof rows }).rows;
      if (rows.filter((r) => r.answered).length >= expected || Date.now() - started > DEADLINE_MS) break;
      await sleep(200);
    }
    clearInterval(sampler);
    const times = rows.filter((r) => r.answered).map((r) => new Date(r.answered!).getTime() - started);
    const answered = times.length;
    // Unanswered by the deadline count as the deadline (a lower bound).
    for (let i = answered; i < expected; i++) times.push(Infinity);
    const poolTimeouts = await count(sql`select count(*)::int as n from jobs where last_error like '%timeout exceeded when trying to connect%'`);
    return {
      lone: quantile(lone, 0.5),
      p50: quantile(times, 0.5),
      p95: quantile(times, 0.95),
      max: Math.max(...times),
      answered,
      expected,
      personalP95: personal.length === PROBES ? quantile(personal, 0.95) : Infinity,
      webhookP95: webhooks.length === PROBES ? quantile(webhooks, 0.95) : Infinity,
      maxWaiting: pool ? String(maxWaiting) : 'n/a',
      poolTimeouts: pool ? String(poolTimeouts) : 'n/a',
      load: load.toFixed(1),
    };
  } finally {
    fake.delay = null;
    await app.close();
    await database.close();
    await graph.close();
  }
}

async function main() {
  const fake = new OpenAiFake();
  await fake.start();
  console.log(`calls ${CALL_MS} ms, every ${TAIL_EVERY}th ${TAIL_MS} ms; deadline ${DEADLINE_MS / 1000} s; pool ${POOL}; JOB_CONCURRENCY ${process.env.JOB_CONCURRENCY ?? 'default'}`);
  const lines: string[] = [];
  for (const kind of DBS) {
    for (const web of WEB) {
      const r = await scenario(kind, web, CHANNEL, fake);
      lines.push(
        `| ${kind === 'pg' ? 'PostgreSQL' : 'PGlite'} | ${web} web + ${CHANNEL} channel | ${s(r.lone)} | ${s(r.p50)} / ${s(r.p95)} / ${s(r.max)} | ${r.answered} of ${r.expected} | ${s(r.personalP95)} | ${s(r.webhookP95)} | ${r.maxWaiting} / ${r.poolTimeouts} | ${r.load} |`,
      );
      console.log(lines.at(-1));
    }
  }
  await fake.close();
  console.log('\n| database | load | lone turn | message → reply p50 / p95 / max | answered by the deadline | person\'s reply → channel p95 | webhook processed p95 | pool: most waiting / timeouts | load avg |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const line of lines) console.log(line);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
