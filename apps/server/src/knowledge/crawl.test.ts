import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, knowledgeChunks } from '../db/schema/index.ts';
import { useTestApp, useUser } from '../test/use-test-app.ts';
import { CRAWLER_USER_AGENT, crawlSite } from './crawl.ts';

/** A loopback test site: robots.txt, a sitemap, links, a disallowed page, a cross-origin redirect, a page that changes. */
const requests: { path: string; userAgent: string }[] = [];
let aboutText = 'We have installed wall chargers since 2011.';
const article = (title: string, body: string, links = '') =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a> Shop menu item</nav>${links}` +
  `<article><h1>${title}</h1><p>${body}</p><p>${'Our team answers every question about chargers and installation. '.repeat(4)}</p></article>` +
  `<footer>Copyright footer</footer></body></html>`;
let site: Server;
let other: Server;
let origin = '';
let otherOrigin = '';

beforeAll(async () => {
  other = createServer((_req, res) => res.end(article('Elsewhere', 'Another origin.')));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
  site = createServer((req, res) => {
    requests.push({ path: req.url ?? '', userAgent: String(req.headers['user-agent']) });
    const html = (body: string) => (res.setHeader('content-type', 'text/html; charset=utf-8'), res.end(body));
    switch (req.url) {
      case '/robots.txt':
        return res.end(`User-agent: *\nDisallow: /private\nSitemap: ${origin}/sitemap.xml\n`);
      case '/sitemap.xml':
        return res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/pricing</loc></url></urlset>`);
      case '/':
        return html(article('Welcome', 'Wall chargers for homes.', '<a href="/about#team">About</a> <a href="/private/secret">Staff</a> <a href="/away">Partner</a> <a href="/brochure.pdf">PDF</a>'));
      case '/pricing':
        return html(article('Pricing', 'Installation costs 480 euros.'));
      case '/about':
        return html(article('About us', aboutText));
      case '/private/secret':
        return html(article('Secret', 'Internal discount codes.'));
      case '/away':
        res.writeHead(302, { location: `${otherOrigin}/` });
        return res.end();
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await new Promise((resolve) => other.close(resolve));
});

const t = useTestApp();
const admin = useUser(t, 'ADMIN');

describe('website crawl', () => {
  it('reads the sitemap and the links within the origin, honours robots.txt, refuses another origin, and a re-crawl replaces a changed page', async () => {
    const { id } = (await t.request({ method: 'POST', url: '/api/admin/knowledge', as: admin.cookie, payload: { name: 'Site' } })).json();
    const added = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, payload: { type: 'website', url: `${origin}/`, refresh: 'weekly' } });
    expect(added.statusCode).toBe(201);
    await t.ctx.jobs.drain();
    const [source] = (await t.request({ method: 'GET', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie })).json();
    expect(source).toMatchObject({ type: 'website', status: 'ready', items: 3, refresh: 'weekly' });
    // The weekly re-crawl is queued, one per source.
    const recrawl = await t.ctx.db.select().from(jobs).where(and(eq(jobs.singletonKey, `knowledge.recrawl:${source.id}`), eq(jobs.status, 'pending')));
    expect(recrawl).toHaveLength(1);
    expect(recrawl[0].runAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const chunkIds = async () =>
      Object.fromEntries(
        (await t.ctx.db.select().from(knowledgeChunks).where(eq(knowledgeChunks.sourceId, source.id))).map((c) => [c.url, c.id]),
      );
    const before = await chunkIds();

    const search = async (query: string) =>
      (await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/search`, as: admin.cookie, payload: { query } })).json().results;
    expect((await search('installation cost'))[0]).toMatchObject({ title: 'Pricing', url: `${origin}/pricing`, text: expect.stringContaining('480 euros') });
    expect((await search('installed since'))[0]).toMatchObject({ url: `${origin}/about`, text: expect.stringContaining('2011') });
    expect((await search('wall chargers homes'))[0].text).not.toContain('Copyright footer');
    expect(await search('discount codes')).toEqual([]);
    expect(await search('another origin')).toEqual([]);
    const paths = requests.map((r) => r.path);
    expect(paths).not.toContain('/private/secret');
    expect(paths).not.toContain('/brochure.pdf');
    expect(paths.indexOf('/sitemap.xml')).toBeLessThan(paths.indexOf('/about'));
    expect(new Set(requests.map((r) => r.userAgent))).toEqual(new Set([CRAWLER_USER_AGENT]));

    aboutText = 'We have installed wall chargers since 2015.';
    await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources/${source.id}/refresh`, as: admin.cookie });
    await t.ctx.jobs.drain();
    const about = (await search('installed since'))[0];
    expect(about.text).toContain('2015');
    expect(about.text).not.toContain('2011');
    // Only the changed page's passages were replaced.
    const after = await chunkIds();
    expect(after[`${origin}/pricing`]).toBe(before[`${origin}/pricing`]);
    expect(after[`${origin}/about`]).not.toBe(before[`${origin}/about`]);
    expect((await t.ctx.db.select().from(jobs).where(and(eq(jobs.singletonKey, `knowledge.recrawl:${source.id}`), eq(jobs.status, 'pending'))))).toHaveLength(1);
  });

  it('keeps to the page limit and marks an unreachable site failed with the reason', async () => {
    const { sections } = await crawlSite(`${origin}/`, { allowPrivate: true, maxPages: 2 });
    expect(sections).toHaveLength(2);
    const { id } = (await t.request({ method: 'POST', url: '/api/admin/knowledge', as: admin.cookie, payload: { name: 'Gone' } })).json();
    await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, payload: { type: 'website', url: 'http://127.0.0.1:1/' } });
    await t.ctx.jobs.drain();
    const [source] = (await t.request({ method: 'GET', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie })).json();
    expect(source).toMatchObject({ status: 'failed', error: 'http://127.0.0.1:1/ could not be fetched.' });
  });

  it('refuses private and loopback addresses without ALLOW_PRIVATE_URLS, when typed and when crawled', async () => {
    await expect(crawlSite(`${origin}/`, { allowPrivate: false })).rejects.toThrow(/private, loopback or link-local/);
    const config = t.ctx.config as { ALLOW_PRIVATE_URLS: boolean };
    config.ALLOW_PRIVATE_URLS = false;
    try {
      const { id } = (await t.request({ method: 'POST', url: '/api/admin/knowledge', as: admin.cookie, payload: { name: 'Strict' } })).json();
      for (const url of [`${origin}/`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/']) {
        const res = await t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/sources`, as: admin.cookie, payload: { type: 'website', url } });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error).toMatch(/private, loopback or link-local/);
      }
    } finally {
      config.ALLOW_PRIVATE_URLS = true;
    }
  });
});
