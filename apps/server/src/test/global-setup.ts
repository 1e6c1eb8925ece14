import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../db/client.ts';
import { adminQuery, withDatabase } from './test-database.ts';

/**
 * Migrates one database for the whole run, so each test database starts from a copy instead of running every
 * migration again (about 2 s a database on PGlite, 0.3 s on PostgreSQL; a run opens some 150 of them):
 * - PGlite: a data-directory dump in a temporary file, loaded by each test's in-memory PGlite;
 * - PostgreSQL: a template database that `create database … template` copies.
 * openTestDatabase still runs the migrator on the copy: it finds every migration applied and does nothing, and a
 * run without this setup (a single file through another config) migrates from scratch as before.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the migrated PGlite dump (TEST_DB=pglite). */
    pgliteSnapshotPath?: string;
    /** Name of the migrated template database (TEST_DB=pg). */
    pgTemplateDatabase?: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (process.env.TEST_DB === 'pg') {
    const baseUrl = process.env.TEST_DATABASE_URL;
    if (!baseUrl) throw new Error('TEST_DB=pg needs TEST_DATABASE_URL');
    const name = `sa_template_${suffix}`;
    await adminQuery(baseUrl, `create database ${name}`);
    const database = openDatabase({ url: withDatabase(baseUrl, name), poolSize: 1 });
    await database.migrate();
    // A template must have no open connection while it is copied.
    await database.close();
    project.provide('pgTemplateDatabase', name);
    return () => adminQuery(baseUrl, `drop database if exists ${name} with (force)`);
  }
  const database = openDatabase({ pgliteDir: 'memory://' });
  await database.migrate();
  const client = (database.db as unknown as { $client: PGlite }).$client;
  const dump = await client.dumpDataDir('none');
  await database.close();
  const file = path.join(tmpdir(), `sa-test-pglite-${suffix}.tar`);
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSnapshotPath', file);
  return () => rm(file, { force: true });
}
