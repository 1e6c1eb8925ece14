/**
 * Live-event load on one instance: 1,000 open conversation streams (server-sent events) and 100 monitors
 * polling the unanswered list every 3 s (as the web page does), while visitors write messages. Measures the
 * delay from a message being posted to its viewer's `conversation.changed` event (p50/p95/p99) and the server
 * process's CPU. Not part of `npm test`; loopback only.
 *
 *   node --import tsx bench/live-events.ts
 *
 * Environment: BENCH_DB=pglite runs the server on PGlite (a fresh DATA_DIR under /tmp); otherwise PostgreSQL at
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a fresh database, dropped after).
 * BENCH_STREAMS (1000), BENCH_MONITORS (100), BENCH_RATE (messages per second, 20), BENCH_SECONDS (30),
 * BENCH_PORT (3293). The server is the real one (`apps/server/src/main.ts`) in its own process, with its job
 * runner, so the offline demo agent answers the messages too. Streams come from 127.0.0.10–19 so the
 * per-address cap (300) is not what is measured. Linux only (reads /proc/<pid>/stat).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminQuery as adminQueryOn, withDatabase } from '../apps/server/src/test/test-database.ts';
import { cpuSeconds, serverEnv, waitForHealth } from './support/server-process.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const MONITORS = Number(process.env.BENCH_MONITORS ?? 100);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const PORT = Number(process.env.BENCH_PORT ?? 3293);
const BASE = `http://127.0.0.1:${PORT}`;
const usePglite = process.env.BENCH_DB === 'pglite';
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN = { email: 'bench-admin@example.com', password: 'bench-password' };
const DB_NAME = `sa_bench_live_${process.pid}`;

const adminQuery = (text: string) => adminQueryOn(baseUrl, text);


const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];


async function inBatches<T>(items: T[], size: number, fn: (item: T, index: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)));
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sa-bench-live-'));
  const env = serverEnv(PORT, dataDir, {
    APP_SECRET: 'bench-secret-bench-secret-bench',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    CHAT_RATE_LIMIT: '1000000',
    CHAT_CONVERSATION_LIMIT: '1000000',
    AUTH_RATE_LIMIT: '1000000',
  });
  if (usePglite) delete env.DATABASE_URL;
  else {
    await adminQuery(`create database ${DB_NAME}`);
    env.DATABASE_URL = withDatabase(baseUrl, DB_NAME);
  }
  const server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const sockets: http.ClientRequest[] = [];
  try {
    await waitForHealth(BASE);
    const login = await fetch(`${BASE}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const cookie = String(login.headers.get('set-cookie')).split(';')[0];
    const types = (await (await fetch(`${BASE}/api/conversation-type/listt`, { headers: { cookie } })).json()) as { id: number }[];
    if (!Array.isArray(types) || !types[0]) throw new Error(`no conversation type: ${JSON.stringify(types)}`);
    const typeId = types[0].id;

    console.log(`creating ${STREAMS} web chats and opening a stream on each (${usePglite ? 'PGlite' : 'PostgreSQL'})`);
    const uuids: string[] = new Array(STREAMS);
    await inBatches([...Array(STREAMS).keys()], 20, async (_, i) => {
      const res = await fetch(`${BASE}/api/conversation/new`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ conversationTypeId: typeId }) });
      uuids[i] = ((await res.json()) as { uuid: string }).uuid;
    });

    const sentAt = new Map<string, number>();
    const delays: number[] = [];
    await inBatches(uuids, 50, (uuid, i) => new Promise<void>((resolve, reject) => {
      const req = http.get(`${BASE}/api/conversation/${uuid}/events`, { localAddress: `127.0.0.${10 + (i % 10)}`, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('event: ready')) resolve();
          if (!chunk.includes('event: conversation.changed')) return;
          const started = sentAt.get(uuid);
          // The first event after a post is its delivery; the agent's reply that follows is not counted.
          if (started !== undefined) {
            delays.push(performance.now() - started);
            sentAt.delete(uuid);
          }
        });
      });
      req.on('error', reject);
      sockets.push(req);
    }));
    console.log(`${sockets.length} streams open; ${MONITORS} monitors polling every 3 s; ${RATE} messages/s for ${SECONDS} s`);

    const monitorTimes: number[] = [];
    let stopping = false;
    const monitors = Array.from({ length: MONITORS }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (3000 * i) / MONITORS));
      while (!stopping) {
        const started = performance.now();
        await fetch(`${BASE}/api/admin/unanswered-conversations/listt`, { headers: { cookie } }).then((r) => r.arrayBuffer());
        monitorTimes.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 3000));
      }
    });

    const pid = server.pid!;
    const cpuBefore = cpuSeconds(pid);
    const windowStart = performance.now();
    let sent = 0;
    const posts: Promise<unknown>[] = [];
    while (performance.now() - windowStart < SECONDS * 1000) {
      const uuid = uuids[Math.floor(Math.random() * uuids.length)];
      if (!sentAt.has(uuid)) {
        sentAt.set(uuid, performance.now());
        sent++;
        posts.push(
          fetch(`${BASE}/api/conversation/${uuid}/written-message`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: `bench message ${sent}` }),
          }).then((r) => r.arrayBuffer()),
        );
      }
      await new Promise((r) => setTimeout(r, 1000 / RATE));
    }
    await Promise.all(posts);
    // Let the last deliveries arrive (bounded).
    for (let i = 0; i < 50 && sentAt.size > 0; i++) await new Promise((r) => setTimeout(r, 100));
    const cores = (cpuSeconds(pid) - cpuBefore) / ((performance.now() - windowStart) / 1000);
    stopping = true;
    await Promise.all(monitors);

    const sorted = [...delays].sort((a, b) => a - b);
    const polls = [...monitorTimes].sort((a, b) => a - b);
    console.log(`\nmessages posted ${sent}, events delivered ${delays.length}, missing ${sentAt.size}`);
    console.log(`event delay ms: p50 ${quantile(sorted, 0.5).toFixed(1)}  p95 ${quantile(sorted, 0.95).toFixed(1)}  p99 ${quantile(sorted, 0.99).toFixed(1)}  max ${sorted.at(-1)?.toFixed(1)}`);
    console.log(`unanswered list poll ms: p50 ${quantile(polls, 0.5).toFixed(1)}  p95 ${quantile(polls, 0.95).toFixed(1)} (${polls.length} polls)`);
    console.log(`server CPU: ${cores.toFixed(2)} cores during the window`);
  } finally {
    for (const req of sockets) req.destroy();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    if (!usePglite) await adminQuery(`drop database if exists ${DB_NAME} with (force)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
