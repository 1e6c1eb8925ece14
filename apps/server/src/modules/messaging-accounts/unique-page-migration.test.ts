import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPglite } from '../../db/open-pglite.ts';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../db/client.ts';
import { withDatabase } from '../../test/test-database.ts';

/**
 * Upgrading a database that already holds duplicate (type, pageId) accounts — the admin form allowed them
 * before 0008 — must not fail: the migration renames the older duplicates, then creates the unique index.
 * The database is migrated up to 0007, filled, then migrated to the end, on the driver under test.
 */
const UNIQUE_MIGRATION = '0008_messaging-accounts-unique-page';

/** A copy of the migrations folder whose journal stops before `tag`. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string; idx: number }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return dir;
}

interface Scratch {
  execute(query: ReturnType<typeof sql>): Promise<{ rows: Record<string, unknown>[] }>;
  migrate(folder: string): Promise<void>;
  close(): Promise<void>;
}

/** An empty database of the driver under test (TEST_DB), not migrated. */
async function scratchDatabase(): Promise<Scratch> {
  if (process.env.TEST_DB !== 'pg') {
    const client = openPglite('memory://');
    const db = drizzlePglite(client);
    return {
      execute: (query) => db.execute(query) as never,
      migrate: (folder) => migratePglite(db, { migrationsFolder: folder }),
      close: () => client.close(),
    };
  }
  const baseUrl = process.env.TEST_DATABASE_URL!;
  const name = `sa_migration_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  await admin(`create database ${name}`);
  const pool = new pg.Pool({ connectionString: withDatabase(baseUrl, name), max: 2 });
  const db = drizzlePg(pool);
  return {
    execute: (query) => db.execute(query) as never,
    migrate: (folder) => migratePg(db, { migrationsFolder: folder }),
    close: async () => {
      await pool.end();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe(`migration ${UNIQUE_MIGRATION}`, () => {
  it('keeps the newest of duplicate accounts on the page id, renames the older ones, then refuses new duplicates', async () => {
    const db = await scratchDatabase();
    cleanups.push(() => db.close());
    const before = migrationsBefore(UNIQUE_MIGRATION);
    cleanups.push(() => rmSync(before, { recursive: true, force: true }));
    await db.migrate(before);

    const account = (type: string, pageId: string, pageName: string) =>
      sql`(${type}, 'v1.sealed', ${pageId}, ${pageName})`;
    await db.execute(sql`
      insert into messaging_accounts (type, access_token_encrypted, page_id, page_name) values
      ${sql.join(
        [
          account('FACEBOOK', '1789', 'Oldest'),
          account('FACEBOOK', '1789', 'Middle'),
          account('FACEBOOK', '1789', 'Newest'),
          account('INSTAGRAM', '1789', 'Same id, other type'),
          account('TWILIO', '+15550001', 'Alone'),
        ],
        sql`, `,
      )}`);
    const ids = Object.fromEntries(
      (await db.execute(sql`select id, page_name from messaging_accounts`)).rows.map((r) => [r.page_name as string, Number(r.id)]),
    );

    await db.migrate(migrationsFolder);

    const rows = (await db.execute(sql`select id, type, page_id, page_name from messaging_accounts order by id`)).rows;
    expect(rows.map((r) => [r.page_name, r.type, r.page_id])).toEqual([
      ['Oldest', 'FACEBOOK', `1789 (duplicate, account ${ids.Oldest})`],
      ['Middle', 'FACEBOOK', `1789 (duplicate, account ${ids.Middle})`],
      ['Newest', 'FACEBOOK', '1789'],
      ['Same id, other type', 'INSTAGRAM', '1789'],
      ['Alone', 'TWILIO', '+15550001'],
    ]);
    await expect(
      db.execute(sql`insert into messaging_accounts (type, access_token_encrypted, page_id, page_name) values ('FACEBOOK', 'v1.x', '1789', 'Again')`),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '23505' }) });
  });
});
