import path from 'node:path';
import { EnvError, loadConfig, readEnvironment } from '../config/env.ts';
import { BackupError, createBackup, restoreBackup } from './backup.ts';

/**
 * `npm run backup [-- <dir>]` and `npm run restore -- <dir> [--replace]` for the embedded mode (docs/operations.md).
 * Same environment as the server (DATA_DIR, STORAGE_DIR); run them with the server stopped.
 */
async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const args = rest.filter((a) => !a.startsWith('--'));
  // The config loader would generate an app secret into DATA_DIR when none is set; a restore brings its own.
  const env = readEnvironment(); // the server's .env / ENV_FILE too
  const config = loadConfig({ ...env, APP_SECRET: env.APP_SECRET || 'placeholder-for-backup-tool' });
  if (command === 'backup') {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const out = path.resolve(args[0] ?? path.join('backups', `sales-agent-${stamp}`));
    const manifest = await createBackup(config, out);
    console.log(`Backup written to ${out}`);
    console.log(`  database, ${manifest.recordings.included ? `${manifest.recordings.files} recording file(s) (${manifest.recordings.bytes} bytes)` : 'no recordings (S3 or none)'}, ${manifest.appSecret ? 'app secret' : 'no app secret file (APP_SECRET is set in the environment)'}`);
    return;
  }
  if (command === 'restore') {
    if (!args[0]) throw new BackupError('Usage: npm run restore -- <backup directory> [--replace]');
    const from = path.resolve(args[0]);
    const manifest = await restoreBackup(config, from, { replace: rest.includes('--replace') });
    console.log(`Restored the backup of ${manifest.createdAt} into ${config.DATA_DIR}`);
    return;
  }
  throw new BackupError('Usage: backup-cli.ts backup [dir] | restore <dir> [--replace]');
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof BackupError || err instanceof EnvError ? err.message : err);
  process.exit(1);
});
