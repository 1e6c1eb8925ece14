import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/executor.ts';
import { knowledgeChunks, knowledgeSources } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { chunkText } from './chunking.ts';
import { crawlSite } from './crawl.ts';
import { queueSourceEmbedding } from './embed.job.ts';
import { DocumentError, type DocumentSection, documentKind, parseDocument } from './parse-document.ts';

export const KNOWLEDGE_INGEST_JOB = 'knowledge.ingest';

const payload = z.object({ sourceId: z.number().int() });

type SourceRow = typeof knowledgeSources.$inferSelect;

/** Sections of a source, or a sentence in words saying why it cannot be read. */
async function readSource(ctx: AppContext, source: SourceRow): Promise<DocumentSection[]> {
  if (source.type === 'faq') return [{ title: source.question ?? undefined, text: `Q: ${source.question}\nA: ${source.answer}` }];
  if (source.type === 'website') {
    // Progress: the pages read so far show on the sources table while the crawl runs.
    const onPage = async (pages: number) => {
      if (pages % 5 === 0) await ctx.db.update(knowledgeSources).set({ items: pages }).where(eq(knowledgeSources.id, source.id));
    };
    const { sections } = await crawlSite(source.url!, { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, onPage });
    return sections;
  }
  const kind = documentKind(source.fileName ?? '');
  if (!kind || !source.content) throw new DocumentError('The file type is not one the knowledge base reads.');
  return parseDocument(kind, source.content);
}

/**
 * Reads a source into chunks and replaces its old chunks in one transaction, so retrieval never sees a
 * half-ingested source. A source deleted meanwhile is skipped; a parse failure marks it failed with the reason.
 */
export async function ingestSource(ctx: AppContext, sourceId: number): Promise<void> {
  const [source] = await ctx.db.select().from(knowledgeSources).where(eq(knowledgeSources.id, sourceId));
  if (!source) return;
  await ctx.db.update(knowledgeSources).set({ status: 'processing', error: null }).where(eq(knowledgeSources.id, sourceId));
  let sections: DocumentSection[];
  try {
    sections = await readSource(ctx, source);
  } catch (error) {
    const reason = error instanceof DocumentError ? error.message : 'The document could not be read.';
    if (!(error instanceof DocumentError)) ctx.log.warn({ err: error, sourceId }, 'knowledge source could not be parsed');
    await ctx.db.update(knowledgeSources).set({ status: 'failed', error: reason }).where(eq(knowledgeSources.id, sourceId));
    return;
  }
  const rows = sections.flatMap((section) =>
    chunkText(section.text).map((text) => ({ title: section.title ?? source.title, text, url: section.url ?? source.url })),
  );
  await ctx.db.transaction(async (tx) => {
    if (source.type === 'website') await replaceChangedPages(tx, source, rows);
    else {
      await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.sourceId, sourceId));
      if (rows.length > 0) {
        await tx.insert(knowledgeChunks).values(rows.map((row, position) => ({ ...row, position, sourceId, collectionId: source.collectionId })));
      }
    }
    const empty = rows.length === 0;
    await tx
      .update(knowledgeSources)
      .set({
        status: empty ? 'failed' : 'ready',
        error: empty ? 'No text was found in this source.' : null,
        items: sections.length,
        refreshedAt: new Date(),
      })
      .where(eq(knowledgeSources.id, sourceId));
    await scheduleRecrawl(ctx, source, tx);
    if (!empty) await queueSourceEmbedding(ctx, sourceId, tx);
  });
}

type ChunkRow = { title: string | null; text: string; url: string | null };

/**
 * A re-crawl replaces changed pages only (issue 21): a page whose passages read the same keeps its chunks
 * (ids and all), a changed page's chunks are replaced, a page no longer found loses them.
 */
async function replaceChangedPages(tx: Executor, source: SourceRow, rows: ChunkRow[]) {
  const byPage = (list: ChunkRow[]) => {
    const pages = new Map<string, ChunkRow[]>();
    for (const row of list) pages.set(row.url ?? '', [...(pages.get(row.url ?? '') ?? []), row]);
    return pages;
  };
  const old = byPage(
    await tx
      .select({ title: knowledgeChunks.title, text: knowledgeChunks.text, url: knowledgeChunks.url })
      .from(knowledgeChunks)
      .where(eq(knowledgeChunks.sourceId, source.id))
      .orderBy(knowledgeChunks.position),
  );
  const fresh = byPage(rows);
  const same = (a: ChunkRow[], b: ChunkRow[]) => a.length === b.length && a.every((row, i) => row.text === b[i].text && row.title === b[i].title);
  const gone = [...old.keys()].filter((url) => !fresh.has(url) || !same(old.get(url)!, fresh.get(url)!));
  if (gone.length > 0) {
    await tx.delete(knowledgeChunks).where(and(eq(knowledgeChunks.sourceId, source.id), inArray(sql`coalesce(${knowledgeChunks.url}, '')`, gone)));
  }
  const added = [...fresh.entries()].filter(([url, pageRows]) => !old.has(url) || !same(old.get(url)!, pageRows)).flatMap(([, pageRows]) => pageRows);
  if (added.length > 0) {
    await tx.insert(knowledgeChunks).values(added.map((row, position) => ({ ...row, position, sourceId: source.id, collectionId: source.collectionId })));
  }
}

const RECRAWL_DAYS = { daily: 1, weekly: 7, monthly: 30 } as const;

/** The next crawl of a website with a schedule, one pending per source (a refresh meanwhile moves it). */
async function scheduleRecrawl(ctx: AppContext, source: SourceRow, tx: Executor) {
  if (source.type !== 'website' || source.refreshSchedule === 'off') return;
  const runAt = new Date(Date.now() + RECRAWL_DAYS[source.refreshSchedule] * 24 * 3600 * 1000);
  await ctx.jobs.enqueue(KNOWLEDGE_INGEST_JOB, { sourceId: source.id }, { runAt, singletonKey: `knowledge.recrawl:${source.id}`, replace: true, executor: tx });
}

export const knowledgeIngestJob: JobDefinition<typeof payload> = {
  name: KNOWLEDGE_INGEST_JOB,
  payload,
  handler: (ctx, { sourceId }) => ingestSource(ctx, sourceId),
};
