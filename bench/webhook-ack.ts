/**
 * Signed webhook acknowledgement: how fast `POST /api/meta-api/webhook` verifies a signed Instagram event,
 * stores it with its processing job and answers, side by side with a bare Node `http` server that answers
 * 200 to the same requests. Not part of `npm test`.
 *
 *   node --import tsx bench/webhook-ack.ts
 *
 * Each server runs in a child process of its own (this script forked with `serve <mode>`); this process is the
 * load generator (autocannon), so the generator's signing work is the same for every server. Every request
 * carries a fresh mid and a valid X-Hub-Signature-256, so none is a redelivery. The product's job runner is on,
 * as in production: the stored events are processed (to phase -2 conversations: the account has no playbook,
 * so no LLM is involved) while the load runs.
 *
 * Two runs per server: saturation (BENCH_CONNECTIONS, default 20, for BENCH_SECONDS, default 10) and a fixed
 * rate of BENCH_RATE events/s (default 1000) for the p99 at that rate. Modes: bare, pglite (in memory),
 * pg (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; a fresh database is created and
 * dropped).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SECRET = 'bench-app-secret';
const PAGE_ID = 'IG-BENCH';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const PORT = Number(process.env.BENCH_PORT ?? 3191);
const pgUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Mode = 'bare' | 'pglite' | 'pg';

async function serve(mode: Mode): Promise<void> {
  if (mode === 'bare') {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve));
    process.send?.('ready');
    return;
  }
  const { buildApp } = await import('../apps/server/src/app.ts');
  const { loadConfig } = await import('../apps/server/src/config/env.ts');
  const { messagingAccounts } = await import('../apps/server/src/db/schema/index.ts');
  const { openTestDatabase } = await import('../apps/server/src/test/test-database.ts');
  if (mode === 'pg') {
    process.env.TEST_DB = 'pg';
    process.env.TEST_DATABASE_URL = pgUrl;
  }
  const database = await openTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'production',
    APP_SECRET: 'bench-secret-bench-secret-bench',
    LOG_LEVEL: 'error',
    META_APP_SECRET: SECRET,
    META_GRAPH_URL: 'http://127.0.0.1:9',
    DATA_DIR: `/tmp/sales-agent-bench-${process.pid}`,
    PORT: String(PORT),
  });
  const { app, ctx } = await buildApp({ config, database });
  await ctx.db.insert(messagingAccounts).values({ type: 'INSTAGRAM', pageId: PAGE_ID, pageName: 'Bench', accessTokenEncrypted: ctx.secrets.seal('t') });
  await app.listen({ port: PORT, host: '127.0.0.1' });
  if (process.env.BENCH_NO_JOBS !== '1') ctx.jobs.start();
  process.on('message', async (message) => {
    if (message !== 'stop') return;
    await app.close();
    await database.close();
    process.exit(0);
  });
  process.send?.('ready');
}

/** A signed Instagram message event with a fresh mid. */
function signedEvent(): { body: string; headers: Record<string, string> } {
  const now = Date.now();
  const body = JSON.stringify({
    object: 'instagram',
    entry: [{ id: PAGE_ID, time: now, messaging: [{ sender: { id: `u-${randomUUID().slice(0, 8)}` }, recipient: { id: PAGE_ID }, timestamp: now, message: { mid: `m_${randomUUID()}`, text: 'Hi, how much is it?' } }] }],
  });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return { body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } };
}

async function load(options: { connections: number; overallRate?: number }) {
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}/api/meta-api/webhook`,
    method: 'POST',
    connections: options.connections,
    duration: SECONDS,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, ...signedEvent() }) }],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function measure(mode: Mode) {
  const child = fork(fileURLToPath(import.meta.url), ['serve', mode], { stdio: 'inherit', execArgv: [...process.execArgv, ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  await load({ connections: 4 }).catch(() => undefined); // warm-up (JIT, connection pool)
  const saturation = await load({ connections: CONNECTIONS });
  const fixed = await load({ connections: 50, overallRate: RATE });
  child.removeAllListeners('exit');
  if (mode === 'bare') child.kill();
  else child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  return { mode, saturation, fixed };
}

async function main() {
  if (process.argv[2] === 'serve') return serve(process.argv[3] as Mode);
  const modes = (process.env.BENCH_MODES?.split(',') as Mode[] | undefined) ?? ['bare', 'pglite', 'pg'];
  console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const rows = [];
  for (const mode of modes) rows.push(await measure(mode));
  console.log(`\n| server | req/s at ${CONNECTIONS} connections | p50 / p99 ms | at ${RATE}/s: achieved req/s | p50 / p99 ms | non-2xx |`);
  console.log('|---|---|---|---|---|---|');
  for (const { mode, saturation, fixed } of rows) {
    console.log(`| ${mode} | ${saturation.rps} | ${saturation.p50} / ${saturation.p99} | ${fixed.rps} | ${fixed.p50} / ${fixed.p99} | ${saturation.non2xx + fixed.non2xx} |`);
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
