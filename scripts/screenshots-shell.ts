/**
 * Screenshots of the shell's main screens for the README (docs/screenshots/), at 1366×800 and 390×844.
 *
 *   npm run build && node --import tsx scripts/screenshots-shell.ts
 *
 * Starts the product as the E2E suite does (fresh PGlite data) on SHOTS_PORT (3196) serving WEB_DIST_DIR.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../e2e/support/constants.ts';

const PORT = Number(process.env.SHOTS_PORT ?? 3196);
const BASE = `http://localhost:${PORT}`;
const OUT = path.resolve('docs/screenshots');
const dist = path.resolve(process.env.WEB_DIST_DIR ?? 'apps/web/dist');

async function startServer() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'e2e/support/start-server.ts'], {
    env: { ...process.env, E2E_PORT: String(PORT), WEB_DIST_DIR: dist },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 240; i += 1) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill();
  throw new Error('server did not start');
}

async function settle(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.locator('.mantine-Loader-root').first().waitFor({ state: 'detached' }).catch(() => undefined);
  await page.waitForLoadState('networkidle');
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const [size, viewport] of [
      ['desktop', { width: 1366, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport, colorScheme: scheme });
        const page = await context.newPage();
        const shot = async (name: string, url: string) => {
          await page.goto(`${BASE}${url}`);
          await settle(page);
          await page.screenshot({ path: path.join(OUT, `${name}-${size}-${scheme}.png`) });
        };
        await shot('start', '/');
        if (scheme === 'light') await shot('not-found', '/no/such/page');
        const login = await context.request.post(`${BASE}/api/user/login`, { data: E2E_ADMIN });
        if (!login.ok()) throw new Error(`login ${login.status()}`);
        await shot('admin-home', '/admin/hello');
        if (scheme === 'light') await shot('permissions', '/admin/user-messaging-accounts/list');
        await context.close();
      }
    }
  } finally {
    await browser.close();
    server.kill();
  }
}

await main();
