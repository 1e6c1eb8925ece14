import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';

export async function healthRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/api/health', { schema: { tags: ['health'] } }, async (_request, reply) => {
    try {
      await ctx.db.execute(sql`select 1`);
      return { status: 'ok', database: ctx.database.driver, llm: ctx.config.OPENAI_API_KEY ? 'openai' : 'offline-demo' };
    } catch {
      return reply.status(503).send({ error: 'The database is not reachable.', code: 'DB_UNAVAILABLE' });
    }
  });
}
