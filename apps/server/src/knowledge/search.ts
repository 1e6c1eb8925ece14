import { and, desc, inArray, sql } from 'drizzle-orm';
import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/executor.ts';
import { knowledgeChunks } from '../db/schema/index.ts';
import { rowsOf } from '../lib/limits.ts';
import { embeddingsModel, embedQuery } from './embeddings.ts';
import { nearestPassages, passagesById } from './vector-scan.ts';

/** What retrieval needs of the app: the database, the embeddings settings and a logger for the fallback. */
export type SearchContext = Pick<AppContext, 'db' | 'config' | 'log'>;

/** A found passage with what made it relevant: its lexical rank score and/or its cosine similarity. */
export interface RankedPassage extends KnowledgePassage {
  lexicalScore?: number;
  similarity?: number;
}

/** Reciprocal rank fusion's constant (Cormack et al. 2009): 1 / (k + rank) per list a passage is in. */
const RRF_K = 60;
/** Candidates each list brings to the fusion. */
const CANDIDATES = 20;

/**
 * A query word found in more passages than this is "common": it brings only this many (arbitrary) passages
 * to the ranking, not all of them. A rarer word brings every passage it is in.
 */
export const WORD_PASSAGES = 100;
/** Passages matching every common word of the query that are ranked at most. */
const ALL_COMMON_PASSAGES = 500;
/**
 * Query words looked up at most: the last ones (a turn's query is the prospect's latest messages, oldest first,
 * up to 2,000 characters). A word past these still counts in the ranking, but brings no passages of its own.
 */
const MAX_WORDS = 64;

/** The query's words as OR-ed full-text terms (websearch_to_tsquery would AND them and miss a passage lacking one). */
const orQuery = (query: string) => sql`replace(plainto_tsquery('english', ${query})::text, '&', '|')::tsquery`;

/**
 * Lexical retrieval with PostgreSQL full-text search (the same SQL on PGlite and PostgreSQL, no API key):
 * passages matching any of the query's words, ranked by ts_rank_cd, length-normalised so a long page does not
 * win by size alone.
 *
 * Ranking every match is what costs at 100k passages: a question's common words are each in several percent of
 * the passages, so the OR matches are tens of thousands and ts_rank_cd reads every one
 * (docs/performance.md "Knowledge retrieval"). So the ranked candidates are capped, chosen through the GIN index:
 * 1. each query word is looked up, at most WORD_PASSAGES + 1 passages: a word with no more than WORD_PASSAGES
 *    (a rare word: a name, a product, "whatsapp") brings all its passages;
 * 2. a common word brings its first WORD_PASSAGES, and the passages with every common word are added (at most
 *    ALL_COMMON_PASSAGES; "installation cost" where both words are everywhere).
 * When no word is common, the candidates are exactly the matches and the ranking is what ranking them all
 * gives; otherwise a passage with only some of the common words and none of the rare ones may be left out —
 * the weakest matches, which a rarer word or all the words outrank.
 */
export async function lexicalSearch(db: Executor, collectionIds: number[], query: string, limit: number) {
  const inCollections = inArray(knowledgeChunks.collectionId, collectionIds);
  // The words as tsquery operands ('instal', 'cost'), from the same parser as the OR-ed query.
  const found = rowsOf<{ word: string; id: number }>(
    await db.execute(sql`
      with words as (
        select w from regexp_split_to_table(nullif(plainto_tsquery('english', ${query})::text, ''), ' & ') with ordinality as t(w, n)
        group by w order by max(n) desc limit ${MAX_WORDS}
      )
      select words.w as word, m.id from words cross join lateral (
        select ${knowledgeChunks.id} as id from ${knowledgeChunks} where ${inCollections} and ${knowledgeChunks.search} @@ words.w::tsquery limit ${WORD_PASSAGES + 1}
      ) m`),
  );
  const perWord = new Map<string, number>();
  for (const { word } of found) perWord.set(word, (perWord.get(word) ?? 0) + 1);
  const common = [...perWord].filter(([, passages]) => passages > WORD_PASSAGES).map(([word]) => word);
  const candidates = new Set(found.map((row) => Number(row.id)));
  if (candidates.size === 0) return [];
  if (common.length > 1) {
    // A query of its own: OR-ed with the id list in one WHERE, the planner reads the whole table.
    const withAllCommon = await db
      .select({ id: knowledgeChunks.id })
      .from(knowledgeChunks)
      .where(and(inCollections, sql`${knowledgeChunks.search} @@ ${common.join(' & ')}::tsquery`))
      .limit(ALL_COMMON_PASSAGES);
    for (const { id } of withAllCommon) candidates.add(id);
  }
  const score = sql<number>`ts_rank_cd(${knowledgeChunks.search}, ${orQuery(query)}, 1)`;
  const rows = await db
    .select({ id: knowledgeChunks.id, text: knowledgeChunks.text, sourceId: knowledgeChunks.sourceId, title: knowledgeChunks.title, url: knowledgeChunks.url, score })
    .from(knowledgeChunks)
    .where(inArray(knowledgeChunks.id, [...candidates]))
    .orderBy(desc(score), knowledgeChunks.id)
    .limit(limit);
  return rows.map((row) => ({ ...row, score: Number(row.score) }));
}

type Row = { id: number; text: string; sourceId: number; title: string | null; url: string | null };

function toPassage(row: Row, score: number): KnowledgePassage {
  return {
    text: row.text,
    score,
    sourceId: row.sourceId,
    ...(row.title ? { title: row.title } : {}),
    ...(row.url ? { url: row.url } : {}),
  };
}

/**
 * The passages of the collections relevant to `query`, best first. Lexical only without EMBEDDINGS_MODEL
 * (score = ts_rank_cd); with it, hybrid: the query is embedded, the nearest passages by cosine similarity are
 * found by exact scan (knowledge/vector-scan.ts), and both lists are fused by reciprocal rank (score = the
 * fused sum). An embeddings call that fails degrades to the lexical results with a logged warning.
 */
export async function searchKnowledge(ctx: SearchContext, collectionIds: number[], query: string, limit = 5): Promise<RankedPassage[]> {
  if (collectionIds.length === 0) return [];
  const model = embeddingsModel(ctx.config);
  const lexical = await lexicalSearch(ctx.db, collectionIds, query, model ? CANDIDATES : limit);
  const lexicalOnly = () => lexical.slice(0, limit).map((row) => ({ ...toPassage(row, row.score), lexicalScore: row.score }));
  if (!model || !query.trim()) return lexicalOnly();
  let nearest: { id: number; similarity: number }[];
  try {
    nearest = await nearestPassages(ctx.db, collectionIds, model, await embedQuery(ctx.config, model, query), CANDIDATES);
  } catch (err) {
    ctx.log.warn({ err, model }, 'knowledge search: the embeddings call failed; lexical results only');
    return lexicalOnly();
  }
  const fused = new Map<number, { row?: Row; score: number; lexicalScore?: number; similarity?: number }>();
  lexical.forEach((row, rank) => fused.set(row.id, { row, score: 1 / (RRF_K + rank + 1), lexicalScore: row.score }));
  nearest.forEach(({ id, similarity }, rank) => {
    const entry = fused.get(id) ?? { score: 0 };
    fused.set(id, { ...entry, score: entry.score + 1 / (RRF_K + rank + 1), similarity });
  });
  const top = [...fused.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, limit);
  const missing = top.filter(([, entry]) => !entry.row).map(([id]) => id);
  const rows = new Map((await passagesById(ctx.db, missing)).map((row) => [row.id, row]));
  return top.flatMap(([id, entry]) => {
    const row = entry.row ?? rows.get(id);
    if (!row) return []; // deleted between the scan and now
    return [{ ...toPassage(row, entry.score), ...(entry.lexicalScore !== undefined ? { lexicalScore: entry.lexicalScore } : {}), ...(entry.similarity !== undefined ? { similarity: entry.similarity } : {}) }];
  });
}
