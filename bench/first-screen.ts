/**
 * First screen over a slow mobile link (issue 12, item 7). Not part of `npm test`.
 *
 *   npm run build && node --import tsx bench/first-screen.ts
 *
 * Starts the product as the E2E suite does (e2e/support/start-server.ts, fresh PGlite data) on BENCH_PORT
 * (3195) serving WEB_DIST_DIR (default apps/web/dist), then loads each screen in a fresh Chromium context
 * (cold cache) with the network throttled through CDP to 1.6 Mbps down, 750 kbps up and 150 ms latency
 * (Lighthouse's "slow 4G" figures). For each screen it reports the JavaScript and CSS bytes transferred (what
 * went over the wire, compressed or not) and the time from navigation to a usable first screen:
 *   - `/`: the 'Start new conversation' button is shown and enabled;
 *   - the conversation list (`/conversation/list`, signed in as the ADMIN): the app's h1 is shown (not the static
 *     shell's, which comes with the HTML) and no loader is left.
 * Each screen is measured with the browser's normal Accept-Encoding and with `identity` (what an uncompressing
 * server sends). BENCH_RUNS (3) runs per case; the median is printed. BENCH_SCREENS=/ (or /conversation/list)
 * limits the screens, BENCH_ENCODINGS=browser (or identity) the encodings.
 */
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../e2e/support/constants.ts';
import { startWebServer } from './support/web-server.ts';

const PORT = Number(process.env.BENCH_PORT ?? 3195);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BASE = `http://localhost:${PORT}`;
const dist = path.resolve(process.env.WEB_DIST_DIR ?? 'apps/web/dist');

const LINK = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9 };

interface Measure {
  js: number;
  css: number;
  ms: number;
}

async function measure(context: BrowserContext, url: string, ready: (page: Page) => Promise<void>, encoding: 'browser' | 'identity'): Promise<Measure> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', LINK);
  if (encoding === 'identity') await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
  const kinds = new Map<string, 'js' | 'css'>();
  const sizes = { js: 0, css: 0 };
  cdp.on('Network.responseReceived', (e) => {
    if (e.type === 'Script') kinds.set(e.requestId, 'js');
    else if (e.type === 'Stylesheet') kinds.set(e.requestId, 'css');
  });
  cdp.on('Network.loadingFinished', (e) => {
    const kind = kinds.get(e.requestId);
    if (kind) sizes[kind] += e.encodedDataLength;
  });
  const start = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await ready(page);
  const ms = performance.now() - start;
  // Chunks requested by the first screen may still be finishing; count them too.
  await page.waitForLoadState('networkidle');
  await page.close();
  return { ...sizes, ms };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

async function main() {
  const server = await startWebServer(PORT, dist);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const screens = [
      {
        name: '/ (start a conversation)',
        url: `${BASE}/`,
        signIn: false,
        ready: async (page: Page) => {
          await page.getByRole('button', { name: 'Start new conversation' }).and(page.locator(':enabled')).waitFor({ timeout: 60_000 });
        },
      },
      {
        name: '/conversation/list (inbox, ADMIN)',
        url: `${BASE}/conversation/list`,
        signIn: true,
        ready: async (page: Page) => {
          // The app's h1, not the static shell's (apps/web/vite-plugins/first-screens.ts), which is there at once.
          await page.locator('h1:not(.fs-title)').first().waitFor({ timeout: 60_000 });
          await page.locator('.mantine-Loader-root').first().waitFor({ state: 'detached', timeout: 60_000 }).catch(() => undefined);
        },
      },
    ].filter((s) => !process.env.BENCH_SCREENS || process.env.BENCH_SCREENS.split(',').includes(new URL(s.url).pathname));
    const encodings = (['browser', 'identity'] as const).filter((e) => !process.env.BENCH_ENCODINGS || process.env.BENCH_ENCODINGS.split(',').includes(e));
    console.log(`link: 1.6 Mbps down / 750 kbps up / 150 ms; ${RUNS} runs per case, median; dist ${dist}`);
    console.log('| screen | encoding | JS transferred | CSS transferred | usable first screen |');
    console.log('|---|---|---|---|---|');
    for (const screen of screens) {
      for (const encoding of encodings) {
        const results: Measure[] = [];
        for (let run = 0; run < RUNS; run += 1) {
          const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
          if (screen.signIn) {
            const res = await context.request.post(`${BASE}/api/user/login`, { data: E2E_ADMIN });
            if (!res.ok()) throw new Error(`login failed: ${res.status()}`);
          }
          results.push(await measure(context, screen.url, screen.ready, encoding));
          await context.close();
        }
        const label = encoding === 'browser' ? 'br (as served)' : 'identity (uncompressed)';
        console.log(
          `| ${screen.name} | ${label} | ${kb(median(results.map((r) => r.js)))} | ${kb(median(results.map((r) => r.css)))} | ${(median(results.map((r) => r.ms)) / 1000).toFixed(2)} s |`,
        );
      }
    }
  } finally {
    await browser.close();
    server.kill();
  }
}

await main();
