import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { readFirstScreens } from './web-app.ts';
import { loadConfig } from '../config/env.ts';
import type { Database } from '../db/client.ts';
import { openTestDatabase } from '../test/test-database.ts';

/** A small build output laid out like vite's: hashed chunks under static/js with .br/.gz copies beside them. */
function writeDist(): string {
  const dist = mkdtempSync(path.join(tmpdir(), 'web-dist-'));
  mkdirSync(path.join(dist, 'static/js'), { recursive: true });
  const files: Record<string, string> = {
    'index.html': `<!doctype html><html><head><script type="module" src="/static/js/index-AbC123.js"></script></head><body>${'<!-- padding -->'.repeat(100)}</body></html>`,
    'static/js/index-AbC123.js': `console.log(${JSON.stringify('chat '.repeat(500))});`,
    'widget.js': `(function(){/* ${'widget '.repeat(300)} */})();`,
    // The start page's own document (apps/web/vite-plugins/first-screens.ts).
    'first-screens/start.html': `<!doctype html><html><head><title>Start new conversation · Sales Agent</title></head><body><div id="root"><h1>Start new conversation</h1></div>${'<!-- padding -->'.repeat(100)}</body></html>`,
    'first-screens.json': JSON.stringify({ '/': 'first-screens/start.html', '/conversation/new': 'first-screens/start.html' }),
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dist, name)), { recursive: true });
    writeFileSync(path.join(dist, name), text);
    writeFileSync(path.join(dist, `${name}.br`), brotliCompressSync(text));
    writeFileSync(path.join(dist, `${name}.gz`), gzipSync(text));
  }
  return dist;
}

describe('serving the web app', () => {
  let app: FastifyInstance;
  let database: Database;
  let dist: string;

  beforeAll(async () => {
    dist = writeDist();
    database = await openTestDatabase();
    const config = loadConfig({
      NODE_ENV: 'test',
      APP_SECRET: 'test-secret-test-secret-test-secret',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://localhost:3000',
      DATA_DIR: `/tmp/sales-agent-test-${process.pid}`,
      WEB_DIST_DIR: dist,
    });
    ({ app } = await buildApp({ config, database, serveWeb: true }));
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('answers hashed assets with brotli when accepted, cached for a year', async () => {
    const res = await app.inject({ url: '/static/js/index-AbC123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(res.rawPayload).toString()).toContain('console.log(');
  });

  it('falls back to gzip, then to the plain file', async () => {
    const gz = await app.inject({ url: '/static/js/index-AbC123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toContain('console.log(');
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const plain = await app.inject({ url: '/static/js/index-AbC123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('console.log(');
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
  });

  it('revalidates index.html on every page route, compressed', async () => {
    for (const url of ['/conversation/list', '/admin/hello', '/login']) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString()).toContain('<!doctype html>');
    }
  });

  it("answers the first screens' paths with their own document, compressed and revalidated", async () => {
    for (const url of ['/', '/conversation/new', '/conversation/new?conversationType=3']) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/text\/html/);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers.vary, url).toMatch(/Accept-Encoding/i);
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toContain('<h1>Start new conversation</h1>');
    }
    const plain = await app.inject({ url: '/' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('<h1>Start new conversation</h1>');
    // Other pages keep the plain document.
    const other = await app.inject({ url: '/conversation/list' });
    expect(other.body).not.toContain('Start new conversation');
  });

  it('ignores first-screen entries it cannot serve, and a manifest that is not JSON', () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'web-dist-'));
    try {
      writeFileSync(path.join(broken, 'ok.html'), '<!doctype html>');
      const manifest = { '/': 'ok.html', '/missing': 'nope.html', '/escape': '../etc/passwd', 'relative': 'ok.html', '/api/x': 'ok.html' };
      writeFileSync(path.join(broken, 'first-screens.json'), JSON.stringify(manifest));
      const warnings: string[] = [];
      expect([...readFirstScreens(broken, (m) => warnings.push(m))]).toEqual([['/', 'ok.html']]);
      expect(warnings).toHaveLength(4);

      writeFileSync(path.join(broken, 'first-screens.json'), '{ not json');
      expect(readFirstScreens(broken, (m) => warnings.push(m)).size).toBe(0);
      expect(warnings.at(-1)).toMatch(/not valid JSON/);
      // No manifest (an older build): nothing to serve, nothing to warn about.
      rmSync(path.join(broken, 'first-screens.json'));
      expect(readFirstScreens(broken, (m) => warnings.push(m)).size).toBe(0);
      expect(warnings).toHaveLength(5);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('keeps strict framing and resource headers on ordinary routes', async () => {
    for (const url of ['/', '/conversation/new', '/static/js/index-AbC123.js', '/api/health']) {
      const res = await app.inject({ url });
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN');
      expect(res.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(String(res.headers['content-security-policy']), url).toContain("frame-ancestors 'self'");
    }
  });

  it('lets other sites load the widget script and frame the embed pages', async () => {
    const script = await app.inject({ url: '/widget.js', headers: { 'accept-encoding': 'gzip' } });
    expect(script.statusCode).toBe(200);
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(script.headers['cache-control']).toBe('no-cache');
    expect(script.headers['content-encoding']).toBe('gzip');

    const embed = await app.inject({ url: '/embed/start/12?x=1' });
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['x-frame-options']).toBeUndefined();
    expect(embed.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const csp = String(embed.headers['content-security-policy']);
    expect(csp).toContain('frame-ancestors *');
    expect(csp).not.toContain("frame-ancestors 'self'");
    // The rest of the policy stays as strict as elsewhere.
    expect(csp).toContain("script-src 'self'");
  });

  it('answers unknown API routes with JSON 404, not the page', async () => {
    const res = await app.inject({ url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    const embedApi = await app.inject({ url: '/api/embed/x' });
    expect(embedApi.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});
