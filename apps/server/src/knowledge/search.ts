import { and, desc, inArray, sql } from 'drizzle-orm';
import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import type { Executor } from '../db/executor.ts';
import { knowledgeChunks } from '../db/schema/index.ts';

/**
 * Lexical retrieval with PostgreSQL full-text search (the same SQL on PGlite and PostgreSQL, no API key):
 * the query's words are OR-ed (websearch_to_tsquery would AND them and miss a passage lacking one word), and
 * passages are ranked by ts_rank_cd, length-normalised so a long page does not win by size alone.
 */
export async function searchKnowledge(
  db: Executor,
  collectionIds: number[],
  query: string,
  limit = 5,
): Promise<KnowledgePassage[]> {
  if (collectionIds.length === 0) return [];
  const tsquery = sql`replace(plainto_tsquery('english', ${query})::text, '&', '|')::tsquery`;
  const score = sql<number>`ts_rank_cd(${knowledgeChunks.search}, ${tsquery}, 1)`;
  const rows = await db
    .select({
      text: knowledgeChunks.text,
      sourceId: knowledgeChunks.sourceId,
      title: knowledgeChunks.title,
      url: knowledgeChunks.url,
      score,
    })
    .from(knowledgeChunks)
    .where(and(inArray(knowledgeChunks.collectionId, collectionIds), sql`${knowledgeChunks.search} @@ ${tsquery}`))
    .orderBy(desc(score), knowledgeChunks.id)
    .limit(limit);
  return rows.map((row) => ({
    text: row.text,
    score: Number(row.score),
    sourceId: row.sourceId,
    ...(row.title ? { title: row.title } : {}),
    ...(row.url ? { url: row.url } : {}),
  }));
}
