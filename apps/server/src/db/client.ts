import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { withAfterCommit } from './after-commit.ts';
import { openPglite } from './open-pglite.ts';
import { withDrizzleParsersOnce } from './pglite-parsers.ts';
import * as schema from './schema/index.ts';

import type { Db } from './executor.ts';

export type { Db, Schema } from './executor.ts';

export interface Database {
  db: Db;
  driver: 'pglite' | 'pg';
  /** The PostgreSQL URL (pg driver): live events LISTEN on a dedicated connection of their own. */
  url?: string;
  /** Runs the drizzle-kit migrations; both drivers apply the same files. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface DatabaseOptions {
  /** `postgres://…`; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory; `memory://` for an in-memory database. */
  pgliteDir?: string;
  /**
   * A PGlite data directory dumped with `dumpDataDir` to start from (tests: one migrated snapshot per run
   * instead of running every migration for every test database).
   */
  pgliteSnapshot?: Blob;
  poolSize?: number;
  /**
   * How long a query waits for a free pooled connection before it fails with an error (default 10 s),
   * instead of waiting forever when the pool is exhausted.
   */
  connectTimeoutMs?: number;
}

/** A query waiting this long for a pooled connection fails (the pool is exhausted or the server unreachable). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export function openDatabase(options: DatabaseOptions): Database {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    });
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => {});
    const db = withAfterCommit(drizzlePg(pool, { schema, casing: 'snake_case' }) as unknown as Db);
    return {
      db,
      driver: 'pg',
      url: options.url,
      migrate: () => migratePg(db as never, { migrationsFolder }),
      close: () => pool.end(),
    };
  }
  const dir = options.pgliteDir ?? 'memory://';
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  // drizzle's per-query type parsers cost PGlite an object spread of its whole parser table per statement.
  const client = withDrizzleParsersOnce(openPglite(dir, options.pgliteSnapshot ? { loadDataDir: options.pgliteSnapshot } : {}));
  const db = withAfterCommit(drizzlePglite(client, { schema, casing: 'snake_case' }) as unknown as Db);
  return {
    db,
    driver: 'pglite',
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    close: () => client.close(),
  };
}
