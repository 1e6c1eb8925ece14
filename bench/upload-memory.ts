/**
 * Upload memory benchmark: streams one large recording (500 MB by default) to a real server process and
 * samples that process's resident memory (VmRSS from /proc) while the upload runs. Not part of `npm test`.
 *
 *   node --import tsx bench/upload-memory.ts
 *
 * Environment: BENCH_UPLOAD_MB (default 500) sets the file size; BENCH_PORT (default 3190) the port of
 * the server it starts (fresh PGlite data directory under /tmp, removed afterwards). The file is a valid
 * WAV (44-byte header, then silence) generated on the fly, so neither side ever holds it in memory; the
 * server really accepts it (magic number, duration read from the media) and it is deleted afterwards.
 * Linux only (reads /proc/<pid>/status).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

const SIZE_MB = Number(process.env.BENCH_UPLOAD_MB ?? 500);
const PORT = Number(process.env.BENCH_PORT ?? 3190);
const BASE = `http://127.0.0.1:${PORT}`;
const ADMIN = { email: 'bench-admin@example.com', password: 'bench-password' };
const SAMPLE_MS = 100;

const rssMb = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
};

/** A WAV header for `dataBytes` of 8 kHz mono 8-bit PCM. */
function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8);
  h.write('fmt ', 12);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28); // byte rate
  h.writeUInt16LE(1, 32); // block align
  h.writeUInt16LE(8, 34); // bits per sample
  h.write('data', 36);
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** The whole multipart body as a stream of 1 MiB chunks, and its exact length. */
function multipartStream(dataBytes: number) {
  const boundary = '----bench-upload-memory';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="bench.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const header = wavHeader(dataBytes);
  const chunk = Buffer.alloc(1024 * 1024, 0x80); // 8-bit silence
  async function* generate() {
    yield head;
    yield header;
    let left = dataBytes;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
      left -= n;
    }
    yield tail;
  }
  return {
    body: Readable.from(generate()),
    length: head.length + header.length + dataBytes + tail.length,
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function waitForHealth(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

interface UploadRun {
  seconds: number;
  before: number;
  median: number;
  peak: number;
  after: number;
  tenths: number[];
  duration: number;
}

/** Uploads one generated WAV of `mb` MiB while sampling the server's RSS, then deletes the recording. */
async function uploadOnce(pid: number, cookie: string, mb: number): Promise<UploadRun> {
  const settle: number[] = [];
  for (let i = 0; i < 10; i++) {
    settle.push(rssMb(pid));
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  const before = settle.sort((a, b) => a - b)[5];
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), SAMPLE_MS);
  const dataBytes = mb * 1024 * 1024;
  const { body, length, contentType } = multipartStream(dataBytes);
  const started = performance.now();
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      `${BASE}/api/call-recording/upload`,
      { method: 'POST', headers: { cookie, 'content-type': contentType, 'content-length': String(length) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  samples.push(rssMb(pid));
  if (answer.status !== 201) throw new Error(`upload failed: ${answer.status} ${answer.text}`);
  const recording = JSON.parse(answer.text).recordings[0];
  const after = rssMb(pid);
  await fetch(`${BASE}/api/call-recording/${recording.id}`, { method: 'DELETE', headers: { cookie } });
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    seconds,
    before,
    median: sorted[Math.floor(sorted.length / 2)],
    peak: sorted[sorted.length - 1],
    after,
    tenths: Array.from({ length: 11 }, (_, i) => samples[Math.floor((i * (samples.length - 1)) / 10)]),
    duration: recording.duration,
  };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-upload-'));
  const server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      UPLOAD_MAX_BYTES: String((SIZE_MB + 10) * 1024 * 1024),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const pid = server.pid!;
  try {
    await waitForHealth();
    const login = await fetch(`${BASE}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];

    // Warm up: the first upload loads the multipart parser and music-metadata; then let the heap settle.
    await uploadOnce(pid, cookie, 10);
    await new Promise((r) => setTimeout(r, 3000));

    console.log(`\n| file | time | throughput | RSS before | RSS median during | RSS peak during | RSS after | peak − before |`);
    console.log(`|---|---|---|---|---|---|---|---|`);
    const timelines: string[] = [];
    for (const mb of [...new Set([50, SIZE_MB])]) {
      const r = await uploadOnce(pid, cookie, mb);
      const fmt = (n: number) => n.toFixed(0);
      console.log(
        `| ${mb} MB WAV | ${r.seconds.toFixed(1)} s | ${fmt(mb / r.seconds)} MB/s | ${fmt(r.before)} MB | ${fmt(r.median)} MB | ${fmt(r.peak)} MB | ${fmt(r.after)} MB | ${fmt(r.peak - r.before)} MB |`,
      );
      timelines.push(`${mb} MB: RSS at 0%,10%,…,100% of the upload (MB): ${r.tenths.map(fmt).join(', ')}; duration read ${r.duration} s`);
      await new Promise((res) => setTimeout(res, 2000));
    }
    console.log('');
    for (const line of timelines) console.log(line);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
