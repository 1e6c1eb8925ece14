import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.ts';
import { openDatabase } from '../db/client.ts';
import { users } from '../db/schema/index.ts';
import { BackupError, createBackup, pgliteDir, restoreBackup } from './backup.ts';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

// PGlite on disk is slow to create and migrate (seconds each); one installation serves every test.
let root: string;
let source: ReturnType<typeof loadConfig>;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'backup-test-'));
  source = await seedInstallation(path.join(root, 'source'));
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An embedded installation with one user, one recording file and a generated app secret. */
async function seedInstallation(dataDir: string) {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const database = openDatabase({ pgliteDir: pgliteDir(config) });
  await database.migrate();
  await database.db.insert(users).values({ email: 'kept@example.com', role: 'ADMIN', passwordHash: null });
  await database.close();
  mkdirSync(path.join(config.STORAGE_DIR, 'ab'), { recursive: true });
  writeFileSync(path.join(config.STORAGE_DIR, 'ab', 'call.mp3'), Buffer.from('recording bytes'));
  mkdirSync(path.join(config.STORAGE_DIR, '.incoming'), { recursive: true });
  writeFileSync(path.join(config.STORAGE_DIR, '.incoming', 'half.part'), 'half an upload');
  return config;
}

async function emailsIn(dataDir: string) {
  const database = openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
  try {
    return (await database.db.select({ email: users.email }).from(users).where(eq(users.email, 'kept@example.com'))).map((u) => u.email);
  } finally {
    await database.close();
  }
}

describe('backup and restore of the embedded mode', () => {
  it('round-trips the database, the recordings and the app secret into a new DATA_DIR', async () => {
    const manifest = await createBackup(source, path.join(root, 'backup-one'));
    expect(manifest).toMatchObject({ recordings: { included: true, files: 1, bytes: 15 }, appSecret: true });

    const target = loadConfig({ DATA_DIR: path.join(root, 'restored-one'), APP_SECRET: 'unused-placeholder-secret', LOG_LEVEL: 'silent' });
    await restoreBackup(target, path.join(root, 'backup-one'));
    expect(await emailsIn(target.DATA_DIR)).toEqual(['kept@example.com']);
    expect(readFileSync(path.join(target.STORAGE_DIR, 'ab', 'call.mp3'), 'utf8')).toBe('recording bytes');
    expect(existsSync(path.join(target.STORAGE_DIR, '.incoming'))).toBe(false);
    expect(readFileSync(path.join(target.DATA_DIR, 'app-secret'), 'utf8')).toBe(source.APP_SECRET);
  }, 120_000);

  it('refuses while the database is open, and refuses to overwrite without --replace', async () => {
    const open = openDatabase({ pgliteDir: pgliteDir(source) });
    await open.db.select().from(users).limit(1);
    await expect(createBackup(source, path.join(root, 'backup-two'))).rejects.toThrow(/in use .*stop the server first/);
    await open.close();
    await createBackup(source, path.join(root, 'backup-two'));

    const error = await restoreBackup(source, path.join(root, 'backup-two')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupError);
    expect((error as Error).message).toMatch(/already exist.*--replace/);
    await restoreBackup(source, path.join(root, 'backup-two'), { replace: true });
    expect(await emailsIn(source.DATA_DIR)).toEqual(['kept@example.com']);
    // The data it replaced was moved aside, not deleted.
    expect(readdirSync(source.DATA_DIR).some((name) => name.startsWith('pglite.before-restore-'))).toBe(true);
  }, 120_000);

  it('runs as npm run backup / npm run restore', async () => {
    const dataDir = source.DATA_DIR;
    const out = path.join(root, 'backup-three');
    const env = { ...process.env, DATA_DIR: dataDir, APP_SECRET: '', DATABASE_URL: '', STORAGE_DIR: '' };
    const backup = await run('npm', ['run', '--silent', 'backup', '--', out], { cwd: repoRoot, env });
    expect(backup.stdout).toContain(`Backup written to ${out}`);
    const restoredDir = path.join(root, 'restored-three');
    const restore = await run('npm', ['run', '--silent', 'restore', '--', out], { cwd: repoRoot, env: { ...env, DATA_DIR: restoredDir } });
    expect(restore.stdout).toContain(`into ${restoredDir}`);
    expect(await emailsIn(restoredDir)).toEqual(['kept@example.com']);
  }, 120_000);

  it('points PostgreSQL deployments to pg_dump', async () => {
    await expect(createBackup({ ...source, DATABASE_URL: 'postgres://x@127.0.0.1:1/x' }, path.join(root, 'never'))).rejects.toThrow(/pg_dump/);
    expect(existsSync(path.join(root, 'never'))).toBe(false);
  });
});
