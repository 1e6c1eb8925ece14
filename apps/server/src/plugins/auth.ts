import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor, AppContext } from '../context.ts';
import { AppError, forbidden, unauthorized } from '../lib/errors.ts';
import { authenticateApiKey } from '../modules/integrations/api-keys.service.ts';
import { createSession, findSessionUser, SESSION_TTL_MS } from '../modules/users/session.service.ts';
import { scopesOf } from './api-key-scopes.ts';

export const SESSION_COOKIE = 'sa_session';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, or null for an anonymous visitor. */
    actor: Actor | null;
    /** The API key the request came with (`Authorization: Bearer`), or null for a session or no one. */
    apiKeyId: number | null;
  }
}

/**
 * Resolves the session cookie to a user on every request and enforces the two coarse rules of
 * DESIGN.md §5 before any handler runs: `/api/admin/**` needs ADMIN (401 anonymous, 403 NORMAL), and
 * state-changing requests from a foreign Origin are refused. Finer rules live in the services.
 */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('actor', null);
  app.decorateRequest('apiKeyId', null);
  const publicOrigin = new URL(ctx.config.PUBLIC_URL).origin;

  app.addHook('onRequest', async (request, reply) => {
    // Decide by the route that matched, not the raw URL: the router decodes %-escapes, so
    // /api/%61dmin/… reaches the /api/admin/… handlers. Unmatched URLs (404s) fall back to the raw one.
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/api/')) return;
    // /api/metrics has its own Bearer token (METRICS_TOKEN, plugins/metrics.ts), not an API key.
    const bearer = path === '/api/metrics' ? null : bearerOf(request);
    if (bearer !== null) {
      // An API key (issue 27): the cookie is ignored, and so is Origin — a browser page of another site cannot
      // send an Authorization header here (it would need CORS, which this server never grants).
      await useApiKey(ctx, request, reply, bearer);
    } else {
      if (!SAFE_METHODS.has(request.method)) refuseForeignOrigin(request, publicOrigin);
      const token = request.cookies[SESSION_COOKIE];
      if (token) request.actor = await findSessionUser(ctx, token);
    }
    // Analytics (issue 26) is for NORMAL users too, over their granted accounts: the service filters.
    if (path.startsWith(ANALYTICS_PREFIX)) requireUser(request);
    else if (path.startsWith('/api/admin/') || path === '/api/admin') requireAdmin(request);
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ANALYTICS_PREFIX = '/api/admin/analytics/';

/** The token of `Authorization: Bearer <token>`, or null without one. */
function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * Signs the request in as the key's creator, after three checks: the key is live (401), the operation is open
 * to keys with one of its scopes (403, plugins/api-key-scopes.ts), and the key is within its rate limit (429,
 * counted on every instance together).
 */
async function useApiKey(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, key: string): Promise<void> {
  const found = await authenticateApiKey(ctx, key);
  const route = request.routeOptions.url;
  // An unknown route answers its 404 whatever the key.
  if (route !== undefined) {
    const needed = scopesOf(request.method, route);
    if (needed === null) {
      throw new AppError(403, 'API_KEY_NOT_ALLOWED', 'This operation is not available with an API key; sign in to use it.');
    }
    if (needed.length > 0 && !needed.some((scope) => found.scopes.includes(scope))) {
      throw new AppError(403, 'API_KEY_SCOPE_MISSING', `This API key lacks the scope ${needed.join(' or ')}.`);
    }
  }
  const limit = ctx.config.API_KEY_RATE_LIMIT;
  const { count, ttlMs } = await ctx.limits.hit(`api-key:${found.keyId}`, 60_000);
  reply.header('x-ratelimit-limit', limit);
  reply.header('x-ratelimit-remaining', Math.max(0, limit - count));
  if (count > limit) {
    reply.header('retry-after', Math.max(1, Math.ceil(ttlMs / 1000)));
    throw new AppError(429, 'RATE_LIMITED', `Too many requests with this API key. Please wait ${Math.max(1, Math.ceil(ttlMs / 1000))} seconds and try again.`);
  }
  request.actor = found.actor;
  request.apiKeyId = found.keyId;
}

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

/** Signs `actor` in on this browser (a new session in its cookie) and returns the session answer of the auth routes. */
export async function signIn(reply: FastifyReply, ctx: AppContext, actor: Pick<Actor, 'id' | 'email' | 'role'>) {
  setSessionCookie(reply, ctx, await createSession(ctx, actor.id));
  return { email: actor.email, role: actor.role };
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
