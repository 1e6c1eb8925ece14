import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './test/test-database.ts';

/**
 * The documented start commands as an operator (or systemd, or Docker) runs them, as real processes: the signal
 * goes to the command's own pid and must reach the server's graceful shutdown (docs/deployment.md "Shutdown").
 * On PostgreSQL (TEST_DB=pg) the server runs on a fresh database; otherwise PGlite in a temporary DATA_DIR.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'sa-start-'));
const dist = path.join(dir, 'dist');
let database: Awaited<ReturnType<typeof openTestDatabase>> | undefined;

beforeAll(async () => {
  mkdirSync(dist);
  // A stand-in for the web build (WEB_DIST_DIR): these tests are about the process, not the web app.
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Sales Agent</title>');
  if (process.env.TEST_DB === 'pg') database = await openTestDatabase();
});
/** Every spawned command, killed at the end if a failed test left it running. */
const spawned: ChildProcess[] = [];
afterAll(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); // npm passes it on
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns a start command and waits until /api/health answers. PORT and HOST come from an env file the server
 * reads at start (the environment has neither): `.env` in the command's working directory for node, the file
 * ENV_FILE names for npm (whose scripts run in the repository).
 */
async function start(command: string, args: string[], name: string, env: Record<string, string> = {}, envFile?: string): Promise<Started> {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  const port = await freePort();
  const viaNpm = command === 'npm';
  const file = path.join(folder, viaNpm ? 'sales-agent.env' : '.env');
  writeFileSync(file, `PORT=${port}\nHOST=127.0.0.1\n${envFile ?? ''}`);
  const cwd = viaNpm ? root : folder;
  if (viaNpm) env = { ENV_FILE: file, ...env };
  const { PORT: _port, HOST: _host, NODE_OPTIONS: _options, ...inherited } = process.env;
  const child = spawn(command, args, {
    cwd,
    env: {
      ...inherited,
      NODE_ENV: 'production',
      WEB_DIST_DIR: dist,
      DATA_DIR: path.join(folder, 'data'),
      LOG_LEVEL: 'info',
      ...(database?.url ? { DATABASE_URL: database.url, APP_SECRET: 'test-secret-test-secret-test-secret' } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  // Wait for the "listening" log line (an event, not a timer), then health.
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.includes('Sales Agent on ')) resolve();
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
  const health = await fetch(`http://127.0.0.1:${port}/api/health`);
  expect(health.status).toBe(200);
  return { child, port, output: () => out, exited };
}

const logLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

async function portClosed(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/api/health`).then(
    () => false,
    () => true,
  );
}

describe('start commands and signals', { timeout: 180_000 }, () => {
  it('npm run start:prod: SIGTERM to npm ends the server gracefully, its open live stream included', async () => {
    const s = await start('npm', ['run', 'start:prod'], 'prod-npm', { TRUST_PROXY: '1' });
    // The seeded demo playbook is type 1 on a fresh database: an anonymous web chat and its live stream.
    const chat = await fetch(`http://127.0.0.1:${s.port}/api/conversation/new`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.5, 198.51.100.23' },
      body: JSON.stringify({ conversationTypeId: 1 }),
    });
    expect(chat.status).toBe(201);
    const { uuid } = (await chat.json()) as { uuid: string };
    const stream = await fetch(`http://127.0.0.1:${s.port}/api/conversation/${uuid}/events`);
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const streamEnded = (async () => {
      const reader = stream.body!.getReader();
      for (;;) if ((await reader.read()).done) return true;
    })();

    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(await streamEnded).toBe(true);
    const lines = logLines(s.output());
    expect(lines.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(lines.some((l) => l.msg === 'shut down: requests, jobs and streams finished')).toBe(true);
    // Loopback only (HOST=127.0.0.1 from the env file): no open-registration warning.
    expect(lines.some((l) => /Registration is open/.test(l.msg))).toBe(false);
    // TRUST_PROXY=1 behind one proxy: the request log shows the address the proxy appended.
    const logged = lines.find((l) => l.msg === 'incoming request' && l.req?.url === '/api/conversation/new');
    expect(logged?.req.remoteAddress).toBe('198.51.100.23');
    expect(await portClosed(s.port)).toBe(true);
  });

  it('node scripts/start.mjs --prod (systemd, Docker): SIGTERM ends it with exit code 0', async () => {
    // HOST from the environment wins over the .env file's 127.0.0.1: every interface, with open registration
    // and no ADMIN yet, which the server warns about once it listens.
    const s = await start(process.execPath, [path.join(root, 'scripts/start.mjs'), '--prod'], 'prod-node', { HOST: '0.0.0.0' });
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const lines = logLines(s.output());
    expect(lines.find((l) => l.level === 40 && /Registration is open/.test(l.msg))?.msg).toMatch(
      /listens on 0\.0\.0\.0 .*whoever registers first becomes ADMIN/,
    );
    expect(lines.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(await portClosed(s.port)).toBe(true);
  });

  it('npm start (the try-out): SIGINT to npm (Ctrl-C, or a process manager) reaches the server', async () => {
    // With WEB_DIST_DIR given, npm start serves it as is instead of building apps/web.
    const s = await start('npm', ['start'], 'tryout', {}, 'REGISTRATION=closed\n');
    const register = await fetch(`http://127.0.0.1:${s.port}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'password123' }),
    });
    // REGISTRATION came from the .env file.
    expect(register.status).toBe(403);
    s.child.kill('SIGINT');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const lines = logLines(s.output());
    expect(lines.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGINT' });
    expect(lines.some((l) => l.msg === 'shut down: requests, jobs and streams finished')).toBe(true);
  });

  it('start:prod without a build refuses with a sentence instead of building', async () => {
    const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs'), '--prod'], {
      cwd: dir,
      env: { ...process.env, WEB_DIST_DIR: path.join(dir, 'no-build-here') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr!.on('data', (chunk) => (out += chunk));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(out).toMatch(/The web app is not built .* Run `npm run build` first/);
  });
});
