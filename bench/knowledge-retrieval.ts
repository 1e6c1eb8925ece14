/**
 * Knowledge base benchmark (issue 21). Not part of `npm test`.
 *
 *   node --import tsx bench/knowledge-retrieval.ts
 *
 * 1. Retrieval: p50/p95 of `searchKnowledge` (the code the search route and every turn run) over one
 *    collection of 10,000 and 100,000 passages, lexical (no EMBEDDINGS_MODEL) and the exact vector scan of
 *    the hybrid path (EMBEDDINGS_DIMENSIONS-long vectors; the query's embedding call is not timed), on PGlite
 *    and PostgreSQL. Passages are generated from a 2,000-word vocabulary plus the query words (~120 words each).
 *    Timed in turn with it (same load): the statement before the candidate cap (ts_rank_cd over every OR match)
 *    and the floor (counting the OR matches, no ranking). Each line prints the load average.
 * 2. Ingestion: pages/s and peak RSS growth while `ingestSource` reads a 500-page loopback website (sitemap)
 *    and a generated 300-page PDF into passages, on PGlite.
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a fresh database per
 * run, dropped after), BENCH_DBS (default pglite,pg), BENCH_SIZES (default 10000,100000), BENCH_RUNS (50),
 * BENCH_DIMS (vector length for the scan, default 256), BENCH_INGEST=0 skips part 2.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../apps/server/src/test/build-test-app.ts';
import { knowledgeChunks, knowledgeCollections, knowledgeSources } from '../apps/server/src/db/schema/index.ts';
import { searchKnowledge } from '../apps/server/src/knowledge/search.ts';
import { nearestPassages } from '../apps/server/src/knowledge/vector-scan.ts';
import { ingestSource } from '../apps/server/src/knowledge/ingest.job.ts';

process.env.TEST_DATABASE_URL ??= process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DBS = (process.env.BENCH_DBS ?? 'pglite,pg').split(',');
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const DIMS = Number(process.env.BENCH_DIMS ?? 256);
const QUERIES = ['how much does installation cost', 'warranty for the pro plan', 'delivery to norway', 'opening hours on saturday', 'refund after thirty days'];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const ms = (n: number) => `${n.toFixed(1)} ms`;
const uptime = () => `load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}`;

/** p50/p95 of each function, run in turn (interleaved, so a change in the machine's load weighs on all alike). */
async function timed(...fns: (() => Promise<unknown>)[]): Promise<{ p50: number; p95: number }[]> {
  for (let i = 0; i < 5; i++) for (const fn of fns) await fn(); // warm-up (and the vector cache's first load)
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      times[k].push(performance.now() - start);
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return { p50: pct(list, 50), p95: pct(list, 95) };
  });
}

const orQuery = (query: string) => sql`replace(plainto_tsquery('english', ${query})::text, '&', '|')::tsquery`;

/** The lexical search before the candidate cap (for comparison in the same run): ts_rank_cd over every OR match. */
function rankEveryMatch(t: TestApp, collectionId: number, query: string, limit: number) {
  return t.ctx.db.execute(
    sql`select id, text, source_id, title, url, ts_rank_cd(search, ${orQuery(query)}, 1) as score from knowledge_chunks
        where collection_id in (${collectionId}) and search @@ ${orQuery(query)} order by score desc, id limit ${limit}`,
  );
}

/** Grows the collection to `size` passages: ~120 words each, drawn (seeded) from a 2,000-word vocabulary plus the query words. */
async function fill(t: TestApp, collectionId: number, sourceId: number, from: number, to: number) {
  const vocabulary = [...QUERIES.flatMap((q) => q.split(' ')), ...Array.from({ length: 2000 }, (_, i) => `word${i}`)];
  let seed = from + 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const embedding = Buffer.from(new Float32Array(DIMS).fill(1 / Math.sqrt(DIMS)).buffer);
  for (let start = from; start < to; start += 500) {
    const rows = Array.from({ length: Math.min(500, to - start) }, (_, k) => ({
      sourceId,
      collectionId,
      position: start + k,
      title: `Page ${start + k}`,
      text: Array.from({ length: 120 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' '),
      embedding,
      embeddingModel: 'bench-model',
    }));
    await t.ctx.db.insert(knowledgeChunks).values(rows);
  }
  await t.ctx.db.execute(sql`analyze knowledge_chunks`);
}

async function retrieval(db: string) {
  process.env.TEST_DB = db;
  const t = await buildTestApp({ EMBEDDINGS_MODEL: '' });
  try {
    const [collection] = await t.ctx.db.insert(knowledgeCollections).values({ name: 'bench' }).returning();
    const [source] = await t.ctx.db.insert(knowledgeSources).values({ collectionId: collection.id, type: 'faq', title: 'bench', status: 'ready' }).returning();
    let filled = 0;
    const query = new Float32Array(DIMS).fill(1 / Math.sqrt(DIMS));
    for (const size of SIZES) {
      const fillStart = performance.now();
      await fill(t, collection.id, source.id, filled, size);
      filled = size;
      let q = 0;
      const next = () => QUERIES[q++ % QUERIES.length];
      // The floor: finding the matching passages (the OR-ed query, as lexical search did) without ranking them.
      const [lexical, before, floor] = await timed(
        () => searchKnowledge(t.ctx, [collection.id], next(), 8),
        () => rankEveryMatch(t, collection.id, next(), 8),
        () => t.ctx.db.execute(sql`select count(*) from knowledge_chunks where collection_id = ${collection.id} and search @@ ${orQuery(next())}`),
      );
      const [scan] = await timed(() => nearestPassages(t.ctx.db, [collection.id], 'bench-model', query, 20));
      console.log(
        `${db} ${size} passages (filled in ${((performance.now() - fillStart) / 1000).toFixed(0)} s; ${uptime()}): ` +
          `lexical p50 ${ms(lexical.p50)} p95 ${ms(lexical.p95)} · before (rank every match) p50 ${ms(before.p50)} p95 ${ms(before.p95)} · ` +
          `floor (match, no rank) p50 ${ms(floor.p50)} p95 ${ms(floor.p95)} · ` +
          `vector scan (${DIMS} dims) p50 ${ms(scan.p50)} p95 ${ms(scan.p95)}`,
      );
    }
  } finally {
    await t.close();
  }
}

/** A 500-page site: a sitemap, each page a nav, an article of ~2,500 characters and a footer. */
async function startSite(pages: number) {
  const paragraph = (i: number, n: number) => `Section ${n} of page ${i}. ` + 'Our widgets are installed by certified technicians within two weeks of the order. '.repeat(8);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/sitemap.xml') {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: pages }, (_, i) => `<url><loc>${base}/page/${i}</loc></url>`).join('')}</urlset>`);
    }
    const match = /^\/page\/(\d+)$/.exec(url) ?? (url === '/' ? ['', '0'] : null);
    if (!match) {
      res.writeHead(404);
      return res.end();
    }
    const i = Number(match[1]);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page ${i}</title></head><body><nav><a href="/">Home</a> <a href="/page/${(i + 1) % pages}">Next</a></nav>` +
        `<article><h1>Page ${i}</h1>${[1, 2, 3].map((n) => `<p>${paragraph(i, n)}</p>`).join('')}</article><footer>© Widgets Ltd</footer></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** A minimal valid PDF of `pages` pages, each with a few lines of text (Helvetica), for the parser to read. */
function pdfOf(pages: number): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  for (let i = 0; i < pages; i++) {
    const pageId = 4 + i * 2;
    const lines = Array.from({ length: 30 }, (_, l) => `(Page ${i + 1} line ${l + 1}: the Pro plan includes WhatsApp and costs 49 euros a month.) Tj T*`).join(' ');
    const stream = `BT /F1 10 Tf 14 TL 40 800 Td ${lines} ET`;
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`;
    pageIds.push(pageId);
  }
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`;
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(body);
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n${offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** Runs `fn` sampling RSS every 20 ms: seconds taken and the peak growth over the RSS before it. */
async function withPeakRss(fn: () => Promise<void>): Promise<{ seconds: number; peakMb: number }> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const start = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { seconds: (performance.now() - start) / 1000, peakMb: (peak - before) / 1024 / 1024 };
}

async function ingestion() {
  process.env.TEST_DB = 'pglite';
  const t = await buildTestApp({ ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS_MODEL: '' });
  const site = await startSite(500);
  try {
    const [collection] = await t.ctx.db.insert(knowledgeCollections).values({ name: 'bench ingest' }).returning();
    const [web] = await t.ctx.db.insert(knowledgeSources).values({ collectionId: collection.id, type: 'website', title: 'site', url: site.url }).returning();
    const crawl = await withPeakRss(() => ingestSource(t.ctx, web.id));
    const [webRow] = await t.ctx.db.select().from(knowledgeSources).where(sql`id = ${web.id}`);
    console.log(`website: ${webRow.items} pages (${webRow.status}) in ${crawl.seconds.toFixed(1)} s = ${(webRow.items / crawl.seconds).toFixed(1)} pages/s, peak RSS growth ${crawl.peakMb.toFixed(0)} MB`);

    const pdf = pdfOf(300);
    const [doc] = await t.ctx.db
      .insert(knowledgeSources)
      .values({ collectionId: collection.id, type: 'document', title: 'manual.pdf', fileName: 'manual.pdf', mimeType: 'application/pdf', content: pdf })
      .returning();
    const parse = await withPeakRss(() => ingestSource(t.ctx, doc.id));
    const [docRow] = await t.ctx.db.select().from(knowledgeSources).where(sql`id = ${doc.id}`);
    const chunks = await t.ctx.db.$count(knowledgeChunks, sql`source_id = ${doc.id}`);
    console.log(`pdf: 300 pages, ${(pdf.length / 1024).toFixed(0)} KB, ${chunks} passages (${docRow.status}) in ${parse.seconds.toFixed(1)} s = ${(300 / parse.seconds).toFixed(1)} pages/s, peak RSS growth ${parse.peakMb.toFixed(0)} MB`);
  } finally {
    site.server.close();
    await t.close();
  }
}

for (const db of DBS) await retrieval(db);
if (process.env.BENCH_INGEST !== '0') await ingestion();
