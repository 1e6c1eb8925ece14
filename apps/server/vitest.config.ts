import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One migrated database per run, copied for each test database (src/test/global-setup.ts).
    globalSetup: ['src/test/global-setup.ts'],
    // Each file builds its own app on its own database (PGlite in memory, or a fresh PostgreSQL database).
    pool: 'forks',
    // A worker runs its files one after another in one module graph instead of a fresh process each: the app's
    // modules and PGlite's WebAssembly are loaded once per worker, not once per file (the PGlite run's CPU time
    // roughly halves; docs/performance.md "Test suite"). Files still get their own app and database
    // (test/use-test-app.ts); process-wide state (lib/metrics.ts counters) is read as a difference.
    isolate: false,
    // Vitest's default (CPUs − 1) runs one file at a time on a 2-core machine, though much of a file's time is
    // spent waiting (PostgreSQL, sockets, spawned servers): two at once took the PostgreSQL run from 259 s to
    // 143 s there (docs/performance.md "Test suite").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { TZ: 'UTC' },
  },
});
