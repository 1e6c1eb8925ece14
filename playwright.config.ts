import { defineConfig } from '@playwright/test';

/**
 * Browser E2E against the real built app in Debian's Chromium (never a downloaded browser). The server is
 * started by e2e/support/start-server.ts on a fresh PGlite directory with an ADMIN from ADMIN_EMAIL.
 */
/** Several people (or helpers) can run suites side by side on different ports. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
/** The server with a fake speech-to-text provider (see webServer below). */
export const E2E_FAKE_OPENAI_PORT = E2E_PORT + 50;
/** The loopback SMTP server e2e/account-recovery.spec.ts runs for the second server's forgot-password emails. */
export const E2E_SMTP_PORT = E2E_PORT + 57;

export default defineConfig({
  testDir: 'e2e',
  // Per-port output, so suites running side by side do not wipe each other's artifacts.
  outputDir: `test-results/port-${E2E_PORT}`,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  webServer: [
    {
      command: 'node --import tsx e2e/support/start-server.ts',
      // Twilio's REST API is a loopback fake on both servers (E2E_FAKE_TWILIO; e2e/make-call.spec.ts).
      env: { E2E_PORT: String(E2E_PORT), E2E_FAKE_TWILIO: '1', ...(process.env.WEB_DIST_DIR ? { WEB_DIST_DIR: process.env.WEB_DIST_DIR } : {}) },
      url: `http://localhost:${E2E_PORT}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // Same product with loopback fakes of speech-to-text (E2E_FAKE_OPENAI; e2e/call-recordings.spec.ts) and of
      // Meta's OAuth (E2E_FAKE_META_OAUTH; e2e/meta-connect.spec.ts).
      command: 'node --import tsx e2e/support/start-server.ts',
      env: {
        E2E_PORT: String(E2E_FAKE_OPENAI_PORT),
        E2E_FAKE_OPENAI: '1',
        E2E_FAKE_META_OAUTH: '1',
        E2E_FAKE_GHL: '1',
        E2E_FAKE_TWILIO: '1',
        E2E_SMTP_PORT: String(E2E_SMTP_PORT),
        ...(process.env.WEB_DIST_DIR ? { WEB_DIST_DIR: process.env.WEB_DIST_DIR } : {}),
      },
      url: `http://localhost:${E2E_FAKE_OPENAI_PORT}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
