import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

/** Routes of this module are built in their own issue; registered from app.ts already. */
export async function unansweredRoutes(_app: FastifyInstance, _opts: { ctx: AppContext }) {}
