/**
 * Starts the product for the browser benchmarks exactly as the E2E suite does (e2e/support/start-server.ts:
 * the same main module, a fresh PGlite data directory, the ADMIN from e2e/support/constants.ts) on `port`,
 * serving the web build in `dist`. Resolves once /api/health answers; the caller kills the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export async function startWebServer(port: number, dist: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'e2e/support/start-server.ts'], {
    env: { ...process.env, E2E_PORT: String(port), WEB_DIST_DIR: dist },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited (${code})`))));
  // The child is killed on purpose after the benchmark; only an exit before it is healthy is an error.
  exited.catch(() => undefined);
  const healthy = (async () => {
    for (let i = 0; i < 240; i += 1) {
      try {
        if ((await fetch(`http://localhost:${port}/api/health`)).ok) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error('server did not start within 2 minutes');
  })();
  try {
    await Promise.race([healthy, exited]);
  } catch (err) {
    child.kill();
    throw err;
  }
  return child;
}
