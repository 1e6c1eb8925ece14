import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase } from '../db/client.ts';
import type { Executor } from '../db/executor.ts';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or — when TEST_DB=pg — a new
 * PostgreSQL database created next to TEST_DATABASE_URL and dropped afterwards. Same migrations either way.
 * Under the API suite's global setup (test/global-setup.ts) it starts from the run's migrated copy.
 */
export async function openTestDatabase(): Promise<Database & { url?: string }> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  const migrated = await migratedCopy();
  if (process.env.TEST_DB !== 'pg') {
    const database = openDatabase({ pgliteDir: 'memory://', pgliteSnapshot: await pgliteSnapshot(migrated.pgliteSnapshotPath) });
    await database.migrate();
    return database;
  }
  if (!baseUrl) throw new Error('TEST_DB=pg needs TEST_DATABASE_URL');
  const name = `sa_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(baseUrl, `create database ${name}${migrated.pgTemplateDatabase ? ` template ${migrated.pgTemplateDatabase}` : ''}`);
  const url = withDatabase(baseUrl, name);
  const database = openDatabase({ url, poolSize: 5 });
  await database.migrate();
  return {
    ...database,
    url,
    close: async () => {
      await database.close();
      await adminQuery(baseUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** What the global setup provided, when this runs in a vitest worker under it (benches import this file too). */
async function migratedCopy(): Promise<{ pgliteSnapshotPath?: string; pgTemplateDatabase?: string }> {
  if (!process.env.VITEST) return {};
  const { inject } = await import('vitest');
  return { pgliteSnapshotPath: inject('pgliteSnapshotPath'), pgTemplateDatabase: inject('pgTemplateDatabase') };
}

/** The dump read once per worker process and shared by its databases (PGlite copies it on load). */
let snapshot: Promise<Blob> | undefined;
function pgliteSnapshot(file: string | undefined): Promise<Blob> | undefined {
  if (!file) return undefined;
  return (snapshot ??= readFile(file).then((bytes) => new Blob([bytes])));
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on its own connection (create / drop database: not inside a pool's transaction). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL only: resolves once a statement in this test's database waits on a lock, or as soon as `done()` is
 * true (the statement finished without waiting). PostgreSQL has no event for a lock wait, so its lock table is
 * read every 10 ms.
 */
export async function untilLockWait(db: Executor, done: () => boolean): Promise<void> {
  while (!done()) {
    const waiting = await db.execute(
      sql`select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()`,
    );
    if ((waiting as unknown as { rows: unknown[] }).rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
