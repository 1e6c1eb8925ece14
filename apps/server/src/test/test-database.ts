import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../db/client.ts';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or — when TEST_DB=pg — a new
 * PostgreSQL database created next to TEST_DATABASE_URL and dropped afterwards. Same migrations either way.
 */
export async function openTestDatabase(): Promise<Database & { url?: string }> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (process.env.TEST_DB !== 'pg') {
    const database = openDatabase({ pgliteDir: 'memory://' });
    await database.migrate();
    return database;
  }
  if (!baseUrl) throw new Error('TEST_DB=pg needs TEST_DATABASE_URL');
  const name = `sa_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(baseUrl, `create database ${name}`);
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
