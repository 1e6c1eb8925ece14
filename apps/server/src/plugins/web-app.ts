import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Hashed build output (vite `assetsDir`): a changed file gets a new name, so browsers may keep it for a year. */
const HASHED_ASSETS_PREFIX = '/static/js/';
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html, widget.js) is revalidated on each use so a deploy shows at once. */
export const REVALIDATE = 'no-cache';

/**
 * Written by the web build (apps/web/vite-plugins/first-screens.ts): `{ "/login": "first-screens/login.html" }`,
 * the pages people open directly, each with its own copy of index.html that preloads the page's chunks and data
 * and draws its header and title before the JavaScript runs. Every other path gets index.html.
 */
export const FIRST_SCREENS_MANIFEST = 'first-screens.json';

/** The manifest's entries whose document exists; an unreadable manifest only costs the faster first screen. */
export function readFirstScreens(dist: string, warn: (message: string) => void): Map<string, string> {
  const screens = new Map<string, string>();
  const file = path.join(dist, FIRST_SCREENS_MANIFEST);
  if (!existsSync(file)) return screens;
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    warn(`${FIRST_SCREENS_MANIFEST} is not valid JSON (${(err as Error).message}); every page gets index.html`);
    return screens;
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) {
    warn(`${FIRST_SCREENS_MANIFEST} is not an object of paths; every page gets index.html`);
    return screens;
  }
  for (const [route, document] of Object.entries(manifest)) {
    const inside = typeof document === 'string' && !path.isAbsolute(document) && !path.normalize(document).startsWith('..');
    if (!route.startsWith('/') || route.startsWith('/api/') || !inside || !existsSync(path.join(dist, document))) {
      warn(`${FIRST_SCREENS_MANIFEST}: ignoring ${JSON.stringify(route)} → ${JSON.stringify(document)}`);
      continue;
    }
    screens.set(route, document);
  }
  return screens;
}

/**
 * Routes another website may embed: the widget's script (loaded by a `<script src>` from any origin) and the
 * embed pages it opens in an iframe. Every other route keeps helmet's strict defaults (frame-ancestors 'self',
 * X-Frame-Options SAMEORIGIN, Cross-Origin-Resource-Policy same-origin).
 */
export function isEmbeddablePath(url: string): boolean {
  const pathname = url.split('?')[0];
  return pathname === '/widget.js' || pathname.startsWith('/embed/');
}

/**
 * Serves the built single-page app: precompressed .br/.gz copies written at build time (vite.config.ts) when
 * the browser accepts them, long-lived caching for hashed assets and revalidation for the rest. Returns false
 * when the app has not been built.
 */
export function registerWebApp(app: FastifyInstance, dist: string): boolean {
  if (!existsSync(path.join(dist, 'index.html'))) {
    app.log.warn({ dist }, 'web app not built; run `npm run build`');
    return false;
  }
  app.register(fastifyStatic, {
    root: dist,
    wildcard: false,
    index: false,
    preCompressed: true,
    // `send` would add its own `max-age=0`, which overrides the header set below.
    cacheControl: false,
    setHeaders(res, filePath) {
      const served = filePath.replace(/\.(br|gz)$/, '');
      const relative = `/${path.relative(dist, served).split(path.sep).join('/')}`;
      res.setHeader('cache-control', relative.startsWith(HASHED_ASSETS_PREFIX) ? IMMUTABLE : REVALIDATE);
      // The same URL answers brotli, gzip or plain text depending on Accept-Encoding: caches must key on it.
      res.setHeader('vary', 'Accept-Encoding');
    },
  });
  // Cache-Control (no-cache), Vary and the precompressed copies come from the static plugin's options above.
  for (const [route, document] of readFirstScreens(dist, (message) => app.log.warn(message))) {
    app.get(route, { schema: { hide: true } }, (_request, reply) => reply.sendFile(document));
  }
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if (!isEmbeddablePath(request.url) || reply.statusCode >= 400) return payload;
    relaxForEmbedding(reply);
    return payload;
  });
  return true;
}

/** Loosens only the headers that stop another origin from loading the widget or framing the chat. */
function relaxForEmbedding(reply: { getHeader(name: string): unknown; header(name: string, value: string): unknown; removeHeader(name: string): unknown }): void {
  reply.removeHeader('x-frame-options');
  reply.header('cross-origin-resource-policy', 'cross-origin');
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp === 'string') {
    const directives = csp
      .split(';')
      .map((d) => d.trim())
      .filter((d) => d && !d.startsWith('frame-ancestors'));
    directives.push('frame-ancestors *');
    reply.header('content-security-policy', directives.join(';'));
  }
}
