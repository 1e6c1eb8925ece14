import { DOMParser, parseHTML } from 'linkedom';
import robotsParser from 'robots-parser';
import { outboundUrlProblem } from '../lib/outbound-url.ts';
import { DocumentError, type DocumentSection, mainContent } from './parse-document.ts';

/**
 * The website crawler of a knowledge source (issue 21 item 1 "a website", item 6 "safe and bounded"): from a
 * start URL, within its own origin only — sitemap.xml first (and sitemaps robots.txt names), then the links of
 * each page, breadth first — honouring robots.txt for our User-Agent, with page and depth limits. Every
 * fetch, redirects included, goes through the private-address rule of outbound calls (lib/outbound-url.ts;
 * ALLOW_PRIVATE_URLS lifts it for tests with a loopback site), a redirect to another origin is refused, and
 * each response is capped in size and time. Each page's main content (Readability, no menus or footers)
 * becomes one section with its URL.
 */

export const CRAWLER_USER_AGENT = 'SalesAgentKnowledgeBot/1.0 (+knowledge base crawler of a Sales Agent installation)';
const ROBOTS_AGENT = 'SalesAgentKnowledgeBot';

export interface CrawlOptions {
  allowPrivate: boolean;
  maxPages?: number;
  maxDepth?: number;
  /** Largest response read, in bytes. */
  maxBytes?: number;
  timeoutMs?: number;
  /** Called after each page, for the progress shown on screen. */
  onPage?: (pagesRead: number) => Promise<void> | void;
}

export const CRAWL_DEFAULTS = { maxPages: 500, maxDepth: 5, maxBytes: 5 * 1024 * 1024, timeoutMs: 15_000 } as const;
const MAX_REDIRECTS = 5;
/** Links to files that are not pages are not followed. */
const NOT_A_PAGE = /\.(pdf|zip|gz|png|jpe?g|gif|webp|svg|ico|css|js|json|xml|mp4|mp3|woff2?|ttf|docx?|xlsx?|pptx?)$/i;

interface Fetched {
  url: string;
  status: number;
  contentType: string;
  body: string;
}

class CrawlRefusal extends Error {}

/** One GET with the outbound rules: each hop checked, same origin only, size and time capped. */
async function fetchBounded(url: string, origin: string, options: Required<Omit<CrawlOptions, 'onPage'>>): Promise<Fetched> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    if (new URL(current).origin !== origin) throw new CrawlRefusal(`${url} redirects to ${current}, outside ${origin}; refused.`);
    const problem = await outboundUrlProblem(current, { allowPrivate: options.allowPrivate });
    if (problem) throw new CrawlRefusal(problem);
    const response = await fetch(current, {
      redirect: 'manual',
      headers: { 'user-agent': CRAWLER_USER_AGENT, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      await response.body?.cancel();
      current = new URL(response.headers.get('location')!, current).toString();
      continue;
    }
    return { url: current, status: response.status, contentType: response.headers.get('content-type') ?? '', body: await readCapped(response, options.maxBytes) };
  }
  throw new CrawlRefusal(`${url} redirects more than ${MAX_REDIRECTS} times.`);
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new CrawlRefusal(`${response.url || 'A page'} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new CrawlRefusal(`A page is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Same-origin http(s) page URL without its fragment, or null. */
function pageUrl(href: string, base: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (url.origin !== origin || !/^https?:$/.test(url.protocol) || NOT_A_PAGE.test(url.pathname)) return null;
  url.hash = '';
  return url.toString();
}

function sitemapLocations(xml: string): string[] {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  return [...doc.querySelectorAll('loc')].map((loc) => (loc.textContent ?? '').trim()).filter(Boolean);
}

export interface CrawlResult {
  sections: DocumentSection[];
  /** Pages skipped because robots.txt disallows them. */
  disallowed: number;
}

/** Crawls the site of `startUrl`; throws DocumentError (a sentence) when the start page cannot be read. */
export async function crawlSite(startUrl: string, crawlOptions: CrawlOptions): Promise<CrawlResult> {
  const options = { ...CRAWL_DEFAULTS, ...crawlOptions } as Required<Omit<CrawlOptions, 'onPage'>> & Pick<CrawlOptions, 'onPage'>;
  const start = new URL(startUrl);
  const origin = start.origin;
  const get = (url: string) => fetchBounded(url, origin, options);

  const robotsUrl = `${origin}/robots.txt`;
  let robotsText = '';
  try {
    const robots = await get(robotsUrl);
    if (robots.status === 200) robotsText = robots.body;
  } catch (error) {
    if (error instanceof CrawlRefusal && (await outboundUrlProblem(startUrl, { allowPrivate: options.allowPrivate }))) throw new DocumentError(error.message);
  }
  const robots = robotsParser(robotsUrl, robotsText);
  const allowed = (url: string) => robots.isAllowed(url, ROBOTS_AGENT) !== false;

  // Sitemaps first (robots.txt's, else /sitemap.xml; one level of sitemap index), then links.
  const queue: { url: string; depth: number }[] = [{ url: pageUrl(start.toString(), start.toString(), origin)!, depth: 0 }];
  const sitemaps = robots.getSitemaps().length ? robots.getSitemaps() : [`${origin}/sitemap.xml`];
  for (const sitemap of sitemaps.slice(0, 5)) {
    try {
      const fetched = await get(sitemap);
      if (fetched.status !== 200) continue;
      for (const loc of sitemapLocations(fetched.body)) {
        if (/\.xml$/i.test(new URL(loc, origin).pathname)) {
          const nested = await get(loc).catch(() => null);
          if (nested?.status === 200) for (const inner of sitemapLocations(nested.body)) queue.push({ url: inner, depth: 1 });
        } else queue.push({ url: loc, depth: 1 });
      }
    } catch {
      // A missing or refused sitemap is not an error: links are followed instead.
    }
  }

  const seen = new Set<string>();
  const sections: DocumentSection[] = [];
  let disallowed = 0;
  let startError: string | null = null;
  while (queue.length > 0 && sections.length < options.maxPages) {
    const next = queue.shift()!;
    const url = pageUrl(next.url, origin, origin);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    if (!allowed(url)) {
      disallowed += 1;
      continue;
    }
    let page: Fetched;
    try {
      page = await get(url);
    } catch (error) {
      if (sections.length === 0 && seen.size === 1) startError = error instanceof CrawlRefusal ? error.message : `${url} could not be fetched.`;
      continue;
    }
    if (page.status !== 200 || !/html/i.test(page.contentType)) {
      if (seen.size === 1) startError = `${url} answered ${page.status}${page.status === 200 ? ' with no HTML page' : ''}.`;
      continue;
    }
    const content = mainContent(page.body);
    if (content.text.trim()) sections.push({ ...content, url: page.url });
    await options.onPage?.(sections.length);
    if (next.depth < options.maxDepth) {
      const { document } = parseHTML(page.body);
      for (const a of document.querySelectorAll('a[href]')) {
        const link = pageUrl(a.getAttribute('href') ?? '', page.url, origin);
        if (link && !seen.has(link)) queue.push({ url: link, depth: next.depth + 1 });
      }
    }
  }
  if (sections.length === 0) throw new DocumentError(startError ?? `No readable page was found at ${startUrl}.`);
  return { sections, disallowed };
}
