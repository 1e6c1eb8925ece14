import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPglite } from '../db/open-pglite.ts';
import type { AppConfig } from '../config/env.ts';

/**
 * Backup and restore of the embedded mode (docs/operations.md "Backups"): the PGlite database, the recordings
 * (local storage) and the app secret, into one directory. PGlite belongs to one process, so both need the
 * server stopped; PostgreSQL deployments use pg_dump/pg_restore instead.
 */
export class BackupError extends Error {}

type BackupConfig = Pick<AppConfig, 'DATA_DIR' | 'STORAGE_DIR' | 'DATABASE_URL' | 'S3_BUCKET'>;

export interface BackupManifest {
  format: 'sales-agent-backup';
  version: 1;
  createdAt: string;
  database: string;
  recordings: { included: boolean; files: number; bytes: number };
  appSecret: boolean;
}

const DATABASE_FILE = 'database.tar.gz';
const MANIFEST_FILE = 'manifest.json';
const SECRET_FILE = 'app-secret';
const RECORDINGS_DIR = 'recordings';

export const pgliteDir = (config: Pick<AppConfig, 'DATA_DIR'>) => path.join(config.DATA_DIR, 'pglite');

/** Writes a backup into `outDir` (created; must not exist yet) and answers its manifest. */
export async function createBackup(config: BackupConfig, outDir: string): Promise<BackupManifest> {
  refuseWithPostgres(config);
  const dbDir = pgliteDir(config);
  if (!existsSync(dbDir)) throw new BackupError(`No embedded database at ${dbDir}: nothing to back up.`);
  refuseWhileOpen(dbDir);
  if (existsSync(outDir)) throw new BackupError(`${outDir} already exists; choose a new backup directory.`);
  mkdirSync(outDir, { recursive: true });
  try {
    // dumpDataDir is PGlite's own consistent copy of its data directory (a tarball).
    const db = openPglite(dbDir);
    let dump: Blob | File;
    try {
      // Dumping before the database is ready leaves a promise nothing keeps alive: the process would just exit.
      await db.waitReady;
      dump = await db.dumpDataDir('gzip');
    } finally {
      await db.close();
    }
    writeFileSync(path.join(outDir, DATABASE_FILE), Buffer.from(await dump.arrayBuffer()));

    const recordings = { included: false, files: 0, bytes: 0 };
    // With S3 the recordings live in the bucket (back it up with the provider's tools); locally they are copied.
    if (!config.S3_BUCKET && existsSync(config.STORAGE_DIR)) {
      cpSync(config.STORAGE_DIR, path.join(outDir, RECORDINGS_DIR), {
        recursive: true,
        // Half-received uploads are not recordings.
        filter: (source) => path.basename(source) !== '.incoming',
      });
      recordings.included = true;
      for (const file of listFiles(path.join(outDir, RECORDINGS_DIR))) {
        recordings.files += 1;
        recordings.bytes += statSync(file).size;
      }
    }
    const secretFile = path.join(config.DATA_DIR, SECRET_FILE);
    const appSecret = existsSync(secretFile);
    if (appSecret) writeFileSync(path.join(outDir, SECRET_FILE), readFileSync(secretFile), { mode: 0o600 });

    const manifest: BackupManifest = {
      format: 'sales-agent-backup',
      version: 1,
      createdAt: new Date().toISOString(),
      database: DATABASE_FILE,
      recordings,
      appSecret,
    };
    writeFileSync(path.join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } catch (err) {
    rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Restores a backup into DATA_DIR/STORAGE_DIR. An existing database is refused unless `replace` is set; then
 * the current database, recordings and secret are moved aside (`*.before-restore-<time>`), never deleted.
 */
export async function restoreBackup(config: BackupConfig, fromDir: string, options: { replace?: boolean } = {}): Promise<BackupManifest> {
  refuseWithPostgres(config);
  const manifest = readManifest(fromDir);
  const dbDir = pgliteDir(config);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const targets = [dbDir, ...(manifest.recordings.included ? [config.STORAGE_DIR] : []), ...(manifest.appSecret ? [path.join(config.DATA_DIR, SECRET_FILE)] : [])];
  const occupied = targets.filter((target) => existsSync(target) && (statSync(target).isFile() || readdirSync(target).length > 0));
  if (occupied.length > 0) {
    if (!options.replace) {
      throw new BackupError(`${occupied.join(', ')} already exist(s). Restore into a new DATA_DIR, or pass --replace to move the current data aside.`);
    }
    if (existsSync(dbDir)) refuseWhileOpen(dbDir);
    for (const target of occupied) renameSync(target, `${target}.before-restore-${stamp}`);
  }

  mkdirSync(config.DATA_DIR, { recursive: true });
  const dump = readFileSync(path.join(fromDir, manifest.database));
  const db = openPglite(dbDir, { loadDataDir: new Blob([dump]) });
  try {
    // A query proves the restored database opens before we report success.
    await db.query('select 1');
  } finally {
    await db.close();
  }
  if (manifest.recordings.included) {
    cpSync(path.join(fromDir, RECORDINGS_DIR), config.STORAGE_DIR, { recursive: true });
  }
  if (manifest.appSecret) {
    writeFileSync(path.join(config.DATA_DIR, SECRET_FILE), readFileSync(path.join(fromDir, SECRET_FILE)), { mode: 0o600 });
  }
  return manifest;
}

function readManifest(dir: string): BackupManifest {
  const file = path.join(dir, MANIFEST_FILE);
  if (!existsSync(file)) throw new BackupError(`${dir} is not a Sales Agent backup (no ${MANIFEST_FILE}).`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  if (manifest.format !== 'sales-agent-backup' || manifest.version !== 1) {
    throw new BackupError(`${file} is not a backup this version can restore.`);
  }
  return manifest;
}

function refuseWithPostgres(config: BackupConfig): void {
  if (config.DATABASE_URL) {
    throw new BackupError('DATABASE_URL is set: back up PostgreSQL with pg_dump (docs/operations.md "Backups"), not with this command.');
  }
}

/** PGlite keeps postmaster.pid in its directory while a process has it open (and after a crash). */
function refuseWhileOpen(dbDir: string): void {
  if (existsSync(path.join(dbDir, 'postmaster.pid'))) {
    throw new BackupError(
      `The database at ${dbDir} is in use (postmaster.pid exists): stop the server first. ` +
        'If it crashed, start and stop it once so the database closes cleanly.',
    );
  }
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}
