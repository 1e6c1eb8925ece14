import { EnvError, loadConfig, readEnvironment } from './config/env.ts';
import { buildApp } from './app.ts';
import { openDatabase } from './db/client.ts';
import { seedDemoData } from './db/seed.ts';
import { scheduleMaintenance } from './jobs/maintenance.ts';
import { scheduleEmbeddingCatchUp } from './knowledge/embed.job.ts';
import { scheduleTokenRefresh } from './modules/meta-auth/token-refresh.job.ts';
import { ensureAdmin } from './modules/users/users.service.ts';
import { openRegistrationWarning } from './modules/users/registration.ts';

/** config → database + migrations → app → listen; SIGINT/SIGTERM close everything in order. */
async function main() {
  let config;
  try {
    config = loadConfig(readEnvironment());
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const database = openDatabase({ url: config.DATABASE_URL, pgliteDir: `${config.DATA_DIR}/pglite` });
  await database.migrate();
  const { app, ctx } = await buildApp({ config, database, serveWeb: true });
  if (config.ADMIN_EMAIL && config.ADMIN_PASSWORD) await ensureAdmin(ctx, config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
  await seedDemoData(ctx);
  await scheduleTokenRefresh(ctx);

  await scheduleMaintenance(ctx);
  // Issue 21: passages lacking the current EMBEDDINGS_MODEL's vectors (a model change) are embedded in the background.
  await scheduleEmbeddingCatchUp(ctx);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // The deadline first: nothing below (not even a log write to a closed stdout) may keep the process alive.
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      app.log.info({ signal }, 'shutting down');
      await app.close();
      await database.close();
      app.log.info({ signal }, 'shut down: requests, jobs and streams finished');
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.PORT, host: config.HOST });
  ctx.jobs.start();
  app.log.info(`Sales Agent on ${config.PUBLIC_URL} (database: ${database.driver})`);
  const warning = await openRegistrationWarning(ctx);
  if (warning) app.log.warn(warning);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
