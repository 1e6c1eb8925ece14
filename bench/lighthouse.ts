/**
 * Lighthouse's mobile scores for the first screens (issue 12, item 7). Not part of `npm test`.
 *
 *   npm run build && node --import tsx bench/lighthouse.ts
 *
 * Starts the product as the E2E suite does (bench/support/web-server.ts: fresh PGlite data, the E2E ADMIN) on
 * BENCH_PORT (3196) serving WEB_DIST_DIR (default apps/web/dist), and runs Lighthouse 12 with its default
 * configuration, which is the mobile one: a Moto G Power sized screen, 4× CPU slowdown and simulated "slow 4G"
 * throttling (1.6 Mbps / 150 ms), on
 *   - `/` (the start page a visitor lands on),
 *   - `/login`,
 *   - `/conversation/list` (the inbox), signed in as the ADMIN: the session cookie is sent with every request
 *     through Lighthouse's `extraHeaders`.
 * BENCH_RUNS (3) runs per page, each in a fresh headless Chromium profile (CHROME_PATH, default
 * /usr/bin/chromium; no browser is downloaded); the median of each figure is printed, then every audit that
 * did not pass in any run of the accessibility, best-practices and SEO categories (what to fix next) and the
 * element taken as the largest contentful paint.
 * BENCH_PAGES=/,/login limits the pages. BENCH_REPORT_DIR=/tmp/… keeps each run's full report (JSON) there, to
 * read what the largest contentful paint waited for (the `lcp-lazy-loaded`, `largest-contentful-paint-element`
 * and `network-requests` audits, the trace's request order).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { E2E_ADMIN } from '../e2e/support/constants.ts';
import { startWebServer } from './support/web-server.ts';

const PORT = Number(process.env.BENCH_PORT ?? 3196);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BASE = `http://localhost:${PORT}`;
const dist = path.resolve(process.env.WEB_DIST_DIR ?? 'apps/web/dist');
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

const PAGES = [
  { path: '/', signIn: false },
  { path: '/login', signIn: false },
  { path: '/conversation/list', signIn: true },
].filter((p) => !process.env.BENCH_PAGES || process.env.BENCH_PAGES.split(',').includes(p.path));

/** A headless Chromium with a throwaway profile (cold cache), listening for the DevTools protocol. */
async function launchChromium(): Promise<{ port: number; close(): Promise<void> }> {
  const profile = await mkdtemp(path.join(tmpdir(), 'bench-lighthouse-'));
  const child = spawn(
    CHROME,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-sync',
      '--mute-audio',
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before listening:\n${seen.slice(-2000)}`)));
  });
  return {
    port,
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The ADMIN's session cookie(s) as a Cookie request header. */
async function adminCookie(): Promise<string> {
  const res = await fetch(`${BASE}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(E2E_ADMIN),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

interface Run {
  scores: Record<(typeof CATEGORIES)[number], number>;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  failed: string[];
  /** The element Lighthouse took as the largest contentful paint. */
  lcpElement: string;
}

/** The first elements or URLs an audit names (its details' items; LCP's are nested one table deeper). */
function describeItems(details: unknown): string {
  const items = ((details as { items?: unknown[] } | undefined)?.items ?? []).flatMap((item) => {
    const nested = (item as { items?: unknown[] }).items;
    return nested ?? [item];
  });
  const names = items
    .slice(0, 2)
    .map((item) => {
      const i = item as { node?: { snippet?: string }; url?: string; description?: string; source?: { url?: string } };
      return i.node?.snippet ?? i.description ?? i.url ?? i.source?.url;
    })
    .filter(Boolean)
    .map((name) => String(name).replace(/\s+/g, ' ').slice(0, 160));
  return names.length ? `: ${names.join(' | ')}` : '';
}

async function runOnce(url: string, extraHeaders: Record<string, string> | undefined): Promise<Run> {
  const chromium = await launchChromium();
  try {
    const result = await lighthouse(url, {
      port: chromium.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      extraHeaders,
    });
    if (!result) throw new Error(`no Lighthouse result for ${url}`);
    const { lhr } = result;
    if (process.env.BENCH_REPORT_DIR) {
      await mkdir(process.env.BENCH_REPORT_DIR, { recursive: true });
      const name = `${new URL(url).pathname.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'start'}-${Date.now()}.json`;
      await writeFile(path.join(process.env.BENCH_REPORT_DIR, name), JSON.stringify(lhr));
    }
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((lhr.categories[c].score ?? 0) * 100)])) as Run['scores'];
    const numeric = (id: string) => lhr.audits[id].numericValue ?? Number.NaN;
    const failed = CATEGORIES.filter((c) => c !== 'performance').flatMap((c) =>
      lhr.categories[c].auditRefs
        .map((ref) => lhr.audits[ref.id])
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual')
        .map((a) => `${c}: ${a.id} (${a.title})${describeItems(a.details)}`),
    );
    const lcpElement = describeItems(lhr.audits['largest-contentful-paint-element']?.details);
    return {
      scores,
      fcp: numeric('first-contentful-paint'),
      lcp: numeric('largest-contentful-paint'),
      tbt: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      failed,
      lcpElement,
    };
  } finally {
    await chromium.close();
  }
}

/** Lighthouse sometimes fails to record a trace (NO_NAVSTART, NO_FCP on a busy machine): such a run is redone. */
async function withRetries<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= attempts) throw err;
      console.error(`run failed, retrying: ${(err as Error).message}`);
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const server = await startWebServer(PORT, dist);
  try {
    const cookie = await adminCookie();
    const rows: string[] = [];
    const notes: string[] = [];
    for (const page of PAGES) {
      const runs: Run[] = [];
      for (let i = 0; i < RUNS; i += 1) runs.push(await withRetries(() => runOnce(`${BASE}${page.path}`, page.signIn ? { Cookie: cookie } : undefined)));
      const m = (pick: (r: Run) => number) => median(runs.map(pick));
      rows.push(
        `| ${page.path}${page.signIn ? ' (ADMIN)' : ''} | ${m((r) => r.scores.performance)} | ${m((r) => r.scores.accessibility)} | ${m((r) => r.scores['best-practices'])} | ${m((r) => r.scores.seo)} | ${seconds(m((r) => r.fcp))} | ${seconds(m((r) => r.lcp))} | ${Math.round(m((r) => r.tbt))} ms | ${m((r) => r.cls).toFixed(3)} |`,
      );
      for (const audit of new Set(runs.flatMap((r) => r.failed))) notes.push(`${page.path}: ${audit}`);
      for (const element of new Set(runs.map((r) => r.lcpElement))) notes.push(`${page.path}: LCP element${element}`);
      notes.push(`${page.path}: each run: performance ${runs.map((r) => r.scores.performance).join(', ')}; LCP ${runs.map((r) => seconds(r.lcp)).join(', ')}; TBT ${runs.map((r) => `${Math.round(r.tbt)} ms`).join(', ')}`);
    }
    console.log(`Lighthouse 12 mobile (simulated slow 4G, 4× CPU); ${RUNS} runs per page, median; dist ${dist}`);
    console.log('| page | performance | accessibility | best practices | SEO | FCP | LCP | TBT | CLS |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(`\nLCP elements, and audits of accessibility, best practices and SEO not passed (any run):\n${notes.map((n) => `- ${n}`).join('\n')}`);
  } finally {
    server.kill();
  }
}

await main();
