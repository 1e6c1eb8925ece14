/**
 * The app config of a benchmark that runs the server in its own process: test mode, its own data directory and a
 * fixed secret, quiet unless BENCH_LOG names a log level. `env` adds the fakes' URLs and the limits it measures.
 */
import { type AppConfig, loadConfig } from '../../apps/server/src/config/env.ts';

export const BENCH_APP_SECRET = 'bench-secret-bench-secret-bench';

export function benchConfig(env: Record<string, string | undefined> = {}): AppConfig {
  return loadConfig({
    NODE_ENV: 'test',
    APP_SECRET: BENCH_APP_SECRET,
    LOG_LEVEL: process.env.BENCH_LOG ?? 'silent',
    DATA_DIR: `/tmp/sales-agent-bench-${process.pid}`,
    ...env,
  });
}
