import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor, AppContext } from '../context.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import { findSessionUser, SESSION_TTL_MS } from '../modules/users/session.service.ts';

export const SESSION_COOKIE = 'sa_session';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, or null for an anonymous visitor. */
    actor: Actor | null;
  }
}

/**
 * Resolves the session cookie to a user on every request and enforces the two coarse rules of
 * DESIGN.md §5 before any handler runs: `/api/admin/**` needs ADMIN (401 anonymous, 403 NORMAL), and
 * state-changing requests from a foreign Origin are refused. Finer rules live in the services.
 */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('actor', null);
  const publicOrigin = new URL(ctx.config.PUBLIC_URL).origin;

  app.addHook('onRequest', async (request) => {
    // Decide by the route that matched, not the raw URL: the router decodes %-escapes, so
    // /api/%61dmin/… reaches the /api/admin/… handlers. Unmatched URLs (404s) fall back to the raw one.
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/api/')) return;
    if (!SAFE_METHODS.has(request.method)) refuseForeignOrigin(request, publicOrigin);
    const token = request.cookies[SESSION_COOKIE];
    if (token) request.actor = await findSessionUser(ctx, token);
    // Analytics (issue 26) is for NORMAL users too, over their granted accounts: the service filters.
    if (path.startsWith(ANALYTICS_PREFIX)) requireUser(request);
    else if (path.startsWith('/api/admin/') || path === '/api/admin') requireAdmin(request);
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANALYTICS_PREFIX = '/api/admin/analytics/';

function refuseForeignOrigin(request: FastifyRequest, publicOrigin: string): void {
  const origin = request.headers.origin;
  // Non-browser clients (webhooks, curl) send no Origin; browsers always do on cross-site writes.
  if (!origin) return;
  if (origin === publicOrigin) return;
  const host = request.headers.host;
  try {
    // Same origin = same scheme, host and port (issue 29): http://host is not https://host. The request's
    // scheme is the connection's, or X-Forwarded-Proto from a proxy named in TRUST_PROXY.
    if (host && new URL(origin).origin === new URL(`${request.protocol}://${host}`).origin) return;
  } catch {
    /* an unparsable Origin (or "null") is foreign */
  }
  throw forbidden('Requests from another site are not allowed.');
}

export function requireUser(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized();
  return request.actor;
}

export function requireAdmin(request: FastifyRequest): Actor {
  const actor = requireUser(request);
  if (actor.role !== 'ADMIN') throw forbidden('This needs an administrator.');
  return actor;
}

export function setSessionCookie(reply: FastifyReply, ctx: AppContext, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.PUBLIC_URL.startsWith('https://'),
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
