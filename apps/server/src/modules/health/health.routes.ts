import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { probeStorageWrite, storageRoom } from './storage-room.ts';

/**
 * Two answers for two questions (docs/operations.md): `/api/health` is liveness (the process runs and the
 * database answers; a failure here means restart), `/api/health/ready` is readiness (this instance can do
 * its work: the database takes a write and the storage takes a write and has room; a failure means send traffic elsewhere
 * and alert, since a restart would not help).
 */
export async function healthRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/api/health', { schema: { tags: ['health'], summary: 'Liveness: the process runs and the database answers' } }, async (_request, reply) => {
    try {
      await ctx.db.execute(sql`select 1`);
      return { status: 'ok', database: ctx.database.driver, llm: ctx.config.OPENAI_API_KEY ? 'openai' : 'offline-demo' };
    } catch {
      return reply.status(503).send({ error: 'The database is not reachable.', code: 'DB_UNAVAILABLE' satisfies ErrorCode });
    }
  });

  app.get(
    '/api/health/ready',
    { schema: { tags: ['health'], summary: 'Readiness: the database takes a write and the storage has room' } },
    async (_request, reply) => {
      const problems: string[] = [];
      const checks: Record<string, 'ok' | 'failing'> = { database: 'ok', storage: 'ok' };
      const fail = (check: 'database' | 'storage', problem: string) => {
        checks[check] = 'failing';
        problems.push(problem);
      };
      /** Runs one probe; a throw marks `check` failing with `problem`, logged with its error. */
      const probe = async (check: 'database' | 'storage', problem: string, run: () => Promise<void>) => {
        try {
          await run();
        } catch (err) {
          ctx.log.warn({ err }, `readiness: ${problem}`);
          fail(check, problem);
        }
      };
      await probe('database', 'the database cannot take a write', () => probeWrite(ctx));
      await probe('storage', 'the storage cannot be written', () => probeStorageWrite(ctx));
      await probe('storage', 'the storage cannot be inspected', async () => {
        const room = await storageRoom(ctx);
        if (room.usable <= 0) fail('storage', `the storage has ${formatMiB(room.free)} free, below the minimum of ${formatMiB(room.minFree)}`);
      });
      if (problems.length > 0) {
        return reply.status(503).send({ error: `Not ready: ${problems.join('; ')}.`, code: 'NOT_READY' satisfies ErrorCode, checks });
      }
      return { status: 'ready', checks };
    },
  );
}

/**
 * A real write (an upsert of one row): a read-only, full or broken database fails it where a `select 1` would
 * still pass.
 */
async function probeWrite(ctx: AppContext): Promise<void> {
  await ctx.db.execute(sql`
    insert into rate_counters (key, count, reset_at) values ('health:write-probe', 1, now() + interval '1 minute')
    on conflict (key) do update set count = 1, reset_at = excluded.reset_at`);
}

function formatMiB(bytes: number): string {
  return `${Math.floor(bytes / (1024 * 1024))} MiB`;
}
