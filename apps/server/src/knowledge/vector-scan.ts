import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';
import { knowledgeChunks } from '../db/schema/index.ts';
import { bytesToVector } from './embeddings.ts';

/**
 * Exact nearest-neighbour search over a collection's passage vectors (docs/architecture.md "Knowledge
 * retrieval": no pgvector here, so an exact scan). Each process keeps one collection's vectors in one
 * Float32Array, loaded on first use and reloaded when the collection's embedded passages change (a cheap
 * count/sum/max of ids, read at most once a second, tells), so a query is a dot product per passage.
 */
interface CollectionVectors {
  signature: string;
  /** When the signature was last read: within RECHECK_MS the vectors are used without reading it again. */
  checkedAt: number;
  ids: Int32Array;
  dims: number;
  vectors: Float32Array;
}

/** Per database handle (tests open many databases whose ids repeat), then per collection and model. */
/**
 * The signature is an aggregate over the collection's passages (tens of ms at 100k on PGlite): read at most
 * once a second per collection, so a passage embedded meanwhile joins semantic results within a second.
 */
const RECHECK_MS = 1000;
const caches = new WeakMap<Executor, Map<string, CollectionVectors>>();

async function collectionVectors(db: Executor, collectionId: number, model: string): Promise<CollectionVectors | null> {
  const where = and(eq(knowledgeChunks.collectionId, collectionId), eq(knowledgeChunks.embeddingModel, model));
  const key = `${collectionId}:${model}`;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const cached = cache.get(key);
  if (cached && Date.now() - cached.checkedAt < RECHECK_MS) return cached;
  const [stats] = await db
    .select({ count: sql<number>`count(*)::int`, sum: sql<string>`coalesce(sum(${knowledgeChunks.id}), 0)::text`, max: sql<number>`coalesce(max(${knowledgeChunks.id}), 0)::int` })
    .from(knowledgeChunks)
    .where(where);
  if (Number(stats.count) === 0) {
    cache.delete(key);
    return null;
  }
  const signature = `${stats.count}:${stats.sum}:${stats.max}`;
  if (cached?.signature === signature) {
    cached.checkedAt = Date.now();
    return cached;
  }
  const rows = await db.select({ id: knowledgeChunks.id, embedding: knowledgeChunks.embedding }).from(knowledgeChunks).where(where);
  const dims = rows[0].embedding ? rows[0].embedding.byteLength / 4 : 0;
  const usable = rows.filter((row) => row.embedding && row.embedding.byteLength === dims * 4);
  const ids = new Int32Array(usable.length);
  const vectors = new Float32Array(usable.length * dims);
  usable.forEach((row, i) => {
    ids[i] = row.id;
    vectors.set(bytesToVector(row.embedding!), i * dims);
  });
  const loaded = { signature, checkedAt: Date.now(), ids, dims, vectors };
  cache.set(key, loaded);
  return loaded;
}

/** The passages of these collections most similar to the (normalised) query vector: id and cosine, best first. */
export async function nearestPassages(
  db: Executor,
  collectionIds: number[],
  model: string,
  query: Float32Array,
  limit: number,
): Promise<{ id: number; similarity: number }[]> {
  const best: { id: number; similarity: number }[] = [];
  for (const collectionId of collectionIds) {
    const found = await collectionVectors(db, collectionId, model);
    if (!found || found.dims !== query.length) continue;
    const { ids, dims, vectors } = found;
    for (let row = 0; row < ids.length; row++) {
      let dot = 0;
      const base = row * dims;
      for (let d = 0; d < dims; d++) dot += vectors[base + d] * query[d];
      if (best.length < limit || dot > best[best.length - 1].similarity) {
        best.push({ id: ids[row], similarity: dot });
        best.sort((a, b) => b.similarity - a.similarity);
        if (best.length > limit) best.pop();
      }
    }
  }
  return best;
}

/** The text, source, title and link of passages by id. */
export async function passagesById(db: Executor, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: knowledgeChunks.id, text: knowledgeChunks.text, sourceId: knowledgeChunks.sourceId, title: knowledgeChunks.title, url: knowledgeChunks.url })
    .from(knowledgeChunks)
    .where(inArray(knowledgeChunks.id, ids));
}
