import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One migrated database per run, copied for each test database (src/test/global-setup.ts).
    globalSetup: ['src/test/global-setup.ts'],
    // Each file builds its own app on its own database (PGlite in memory, or a fresh PostgreSQL database).
    pool: 'forks',
    // Vitest's default (CPUs − 1) runs one file at a time on a 2-core machine, though much of a file's time is
    // spent waiting (PostgreSQL, sockets, spawned servers): two at once took the PostgreSQL run from 259 s to
    // 143 s there (docs/performance.md "Test suite").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { TZ: 'UTC' },
  },
});
