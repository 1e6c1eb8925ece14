/**
 * Conversation read throughput (issue 13 item 7): `GET /api/conversation/{uuid}` (20 messages) side by side with
 * `/api/health` (the floor of the stack: routing, hooks, one `select 1`) and `/api/conversation-type/listt`, in
 * one run per database. Not part of `npm test`; loopback only.
 *
 *   node --import tsx bench/conversation-read.ts
 *
 * Per database the script seeds a fresh one directly (a conversation type with 3 phases; a prospect conversation
 * with 20 messages read by an ADMIN session; a web chat with 20 messages read anonymously by its uuid), then
 * starts the real server (`apps/server/src/main.ts`, NODE_ENV=production, LOG_LEVEL=warn) in its own process on
 * that database and loads it with autocannon from this process: each URL for BENCH_SECONDS (10) at
 * BENCH_CONNECTIONS (20), then the signed-in read at 50 connections (the PGlite p99 goal). It prints a markdown
 * table (req/s, p50/p99 ms, ratio to /api/health of the same run, the server process's CPU time per request) and
 * the load average before and after. CPU per request (from /proc, so Linux only) moves much less than req/s when
 * other processes compete for the machine: compare those when the load average is high.
 *
 * Environment: BENCH_DBS (`pg,pglite`), BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres;
 * a fresh database is created and dropped), BENCH_PORT (3296), BENCH_SECONDS, BENCH_CONNECTIONS,
 * BENCH_PROFILE=<dir> (the server writes a V8 CPU profile there on exit: `--cpu-prof`),
 * BENCH_ONLY=<label substring> (measure only the matching rows, e.g. `signed in` while profiling).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { AppContext } from '../apps/server/src/context.ts';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { createSecretBox } from '../apps/server/src/lib/crypto.ts';
import {
  buildConversation,
  buildConversationType,
  buildMessagingAccount,
  buildProspect,
} from '../apps/server/src/test/conversation-factories.ts';
import { buildAdmin } from '../apps/server/src/test/factories.ts';
import { adminQuery as adminQueryOn, withDatabase } from '../apps/server/src/test/test-database.ts';
import { cpuSeconds, serverEnv, waitForHealth } from './support/server-process.ts';

type Db = 'pg' | 'pglite';

const DBS = (process.env.BENCH_DBS?.split(',') as Db[] | undefined) ?? ['pg', 'pglite'];
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PORT = Number(process.env.BENCH_PORT ?? 3296);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PROFILE_DIR = process.env.BENCH_PROFILE;
const ONLY = process.env.BENCH_ONLY;
const APP_SECRET = 'bench-secret-bench-secret-bench';
const BASE = `http://127.0.0.1:${PORT}`;
const MESSAGES = 20;

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const adminQuery = (text: string) => adminQueryOn(baseUrl, text);

/** Messages of a plausible length (80–320 characters), prospect and agent in turn, a minute apart. */
function conversationMessages() {
  const sentence = 'We would like to know more about the plan, the price per seat and how the onboarding works for a team. ';
  return Array.from({ length: MESSAGES }, (_, i) => ({
    role: i % 2 === 0 ? ('PROSPECT' as const) : ('AGENT' as const),
    message: sentence.repeat(1 + (i % 3)).slice(0, 80 + ((i * 37) % 240)),
    dateSent: new Date(Date.UTC(2025, 0, 1, 9, i)),
  }));
}

/** Seeds the database the server will open, then closes it: the server process is its only user afterwards. */
async function seed(database: ReturnType<typeof openDatabase>) {
  await database.migrate();
  const ctx = { db: database.db, secrets: createSecretBox(APP_SECRET) } as unknown as AppContext;
  const type = await buildConversationType(ctx, { title: 'Bench playbook', phases: 3 });
  const account = await buildMessagingAccount(ctx, { pageName: 'Bench page' });
  const prospect = await buildProspect(ctx, account.id);
  const prospectConversation = await buildConversation(ctx, { conversationTypeId: type.id, prospectId: prospect.id, phase: 1, messages: conversationMessages() });
  const webChat = await buildConversation(ctx, { conversationTypeId: type.id, phase: 1, messages: conversationMessages() });
  const admin = await buildAdmin(ctx);
  await database.close();
  return { adminCookie: admin.cookie, prospectUuid: prospectConversation.uuid, webChatUuid: webChat.uuid };
}


interface Target {
  label: string;
  path: string;
  headers?: Record<string, string>;
  connections: number;
}


async function hammer(target: Target, seconds: number, serverPid?: number) {
  const cpuBefore = serverPid ? cpuSeconds(serverPid) : 0;
  const result = await autocannon({
    url: `${BASE}${target.path}`,
    connections: target.connections,
    duration: seconds,
    headers: target.headers,
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
    cpuUsPerRequest: serverPid && result.requests.total > 0 ? Math.round(((cpuSeconds(serverPid) - cpuBefore) * 1e6) / result.requests.total) : NaN,
  };
}

async function measure(db: Db) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sa-bench-read-'));
  const dbName = `sa_bench_read_${process.pid}`;
  const env = serverEnv(PORT, dataDir, { APP_SECRET, ADMIN_EMAIL: '', ADMIN_PASSWORD: '' });
  let seeded;
  if (db === 'pglite') {
    delete env.DATABASE_URL;
    seeded = await seed(openDatabase({ pgliteDir: `${dataDir}/pglite` }));
  } else {
    await adminQuery(`create database ${dbName}`);
    env.DATABASE_URL = withDatabase(baseUrl, dbName);
    seeded = await seed(openDatabase({ url: env.DATABASE_URL, poolSize: 2 }));
  }
  const execArgv = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const server = spawn(process.execPath, [...execArgv, '--import', 'tsx', 'apps/server/src/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    await waitForHealth(BASE);
    const cookie = { cookie: seeded.adminCookie };
    const check = await fetch(`${BASE}/api/conversation/${seeded.prospectUuid}`, { headers: cookie });
    const body = (await check.json()) as { messages?: unknown[] };
    if (!check.ok || body.messages?.length !== MESSAGES) throw new Error(`seeded conversation not readable: ${check.status} ${JSON.stringify(body).slice(0, 200)}`);

    const targets: Target[] = [
      { label: '/api/health', path: '/api/health', connections: CONNECTIONS },
      { label: '/api/conversation-type/listt', path: '/api/conversation-type/listt', connections: CONNECTIONS },
      { label: `conversation read, signed in (ADMIN), ${MESSAGES} messages`, path: `/api/conversation/${seeded.prospectUuid}`, headers: cookie, connections: CONNECTIONS },
      { label: `conversation read, anonymous (web chat), ${MESSAGES} messages`, path: `/api/conversation/${seeded.webChatUuid}`, connections: CONNECTIONS },
      { label: `conversation read, signed in (ADMIN), ${MESSAGES} messages`, path: `/api/conversation/${seeded.prospectUuid}`, headers: cookie, connections: 50 },
    ].filter((t) => !ONLY || t.label.includes(ONLY) || t.path === '/api/health');
    // Warm-up: JIT, the connection pool, PostgreSQL's and PGlite's caches.
    for (const target of targets) await hammer({ ...target, connections: 4 }, 2);
    const rows = [];
    for (const target of targets) {
      console.error(`${db}: ${target.label} at ${target.connections} connections (load ${load()})`);
      rows.push({ target, ...(await hammer(target, SECONDS, server.pid)) });
    }
    // Requests autocannon abandoned at the end of the last run may still be in the server: let them finish
    // before the shutdown closes the pool under them.
    await new Promise((r) => setTimeout(r, 1000));
    return rows;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    if (db === 'pg') await adminQuery(`drop database if exists ${dbName} with (force)`);
  }
}

async function main() {
  const before = load();
  const results: { db: Db; rows: Awaited<ReturnType<typeof measure>> }[] = [];
  for (const db of DBS) results.push({ db, rows: await measure(db) });
  console.log(`\nload average before: ${before}`);
  console.log('\n| database | request | connections | req/s | p50 / p99 ms | of /api/health | server CPU µs/request | of /api/health by CPU | non-2xx or errors |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { db, rows } of results) {
    const health = rows.find((r) => r.target.path === '/api/health' && r.target.connections === CONNECTIONS);
    const floor = health?.rps ?? NaN;
    for (const r of rows) {
      const ratio = `${((100 * r.rps) / floor).toFixed(1)} %`;
      // What the ratio would be if the server alone bounded throughput: its CPU per /api/health over this one's.
      const cpuRatio = `${((100 * (health?.cpuUsPerRequest ?? NaN)) / r.cpuUsPerRequest).toFixed(1)} %`;
      console.log(`| ${db === 'pg' ? 'PostgreSQL' : 'PGlite'} | ${r.target.label} | ${r.target.connections} | ${r.rps} | ${r.p50} / ${r.p99} | ${ratio} | ${r.cpuUsPerRequest} | ${cpuRatio} | ${r.bad} |`);
    }
  }
  console.log(`\nload average after: ${load()}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
