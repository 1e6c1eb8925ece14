import { eq } from 'drizzle-orm';
import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import type { Executor } from '../db/executor.ts';
import { knowledgeMessagePassages } from '../db/schema/index.ts';
import { type RankedPassage, type SearchContext, searchKnowledge } from './search.ts';
import { typeCollectionIds } from './type-collections.ts';

/** Passages one turn's draft prompt carries at most. */
export const TURN_PASSAGES = 4;
/**
 * A passage below this share of the best score is dropped: OR-ed lexical matching lets a passage in on one
 * shared word, and an unrelated fact in the prompt invites the model to use it.
 */
const RELATIVE_SCORE_FLOOR = 0.25;
/** A semantic match under this share of the best similarity is dropped (with EMBEDDINGS_MIN_SIMILARITY). */
const RELATIVE_SIMILARITY_FLOOR = 0.75;

/** The prospect's messages since the agent last spoke (at most the last three): what the turn must answer. */
export function latestProspectText(history: { role: string; message: string }[]): string {
  const lastAgent = history.map((m) => m.role).lastIndexOf('AGENT');
  return history
    .slice(lastAgent + 1)
    .filter((m) => m.role === 'PROSPECT')
    .slice(-3)
    .map((m) => m.message)
    .join('\n');
}

/** What a turn knows: whether the type has knowledge collections at all, and the passages retrieved. */
export interface TurnKnowledge {
  /** The prospect's messages the turn answers (the retrieval query). */
  question: string;
  passages: KnowledgePassage[];
}

/** A passage as prompts, answers and the stored copy carry it (without the ranking details). */
export function plainPassage({ lexicalScore: _lexical, similarity: _similarity, ...passage }: RankedPassage): KnowledgePassage {
  return passage;
}

/**
 * The passages of the given collections relevant to `query`, best first: at most TURN_PASSAGES, each either a
 * lexical match scoring at least a quarter of the best lexical one or a semantic match with a cosine similarity
 * of at least EMBEDDINGS_MIN_SIMILARITY and three quarters of the best one (hybrid search ranks every passage by
 * similarity, related or not, and passages of one business all sit a little above an unrelated text).
 */
export async function retrieveRelevant(ctx: SearchContext, collectionIds: number[], query: string): Promise<KnowledgePassage[]> {
  if (!query.trim() || collectionIds.length === 0) return [];
  const found = await searchKnowledge(ctx, collectionIds, query.slice(0, 2000), TURN_PASSAGES * 2);
  const bestLexical = Math.max(0, ...found.map((p) => p.lexicalScore ?? 0));
  const minSimilarity = Math.max(ctx.config.EMBEDDINGS_MIN_SIMILARITY, Math.max(0, ...found.map((p) => p.similarity ?? 0)) * RELATIVE_SIMILARITY_FLOOR);
  return found
    .filter(
      (p) =>
        (p.lexicalScore !== undefined && p.lexicalScore >= bestLexical * RELATIVE_SCORE_FLOOR) ||
        (p.similarity !== undefined && p.similarity >= minSimilarity),
    )
    .slice(0, TURN_PASSAGES)
    .map(plainPassage);
}

/**
 * The knowledge of one turn: null when the type has no collections (the draft is as before), else the
 * passages relevant to the prospect's latest messages (possibly none). `pinned`: the collections of the
 * version the conversation is pinned to (issue 25); null reads the type's current links (the draft).
 */
export async function knowledgeForTurn(
  ctx: SearchContext,
  typeId: number,
  history: { role: string; message: string }[],
  pinned: number[] | null = null,
): Promise<TurnKnowledge | null> {
  const collections = pinned ?? (await typeCollectionIds(ctx.db, typeId));
  if (collections.length === 0) return null;
  const question = latestProspectText(history);
  return { question, passages: await retrieveRelevant(ctx, collections, question) };
}

/**
 * The block the draft prompt gets: each passage with its source, and the rule not to invent beyond them
 * (also when nothing was found: the type has knowledge, so the agent must not make facts up). Without
 * `rule`, only the passages (for the checking prompt).
 */
export function knowledgePromptBlock(passages: KnowledgePassage[], rule = true): string {
  const items = passages.map((p, i) => {
    const source = [p.title, p.url].filter(Boolean).join(' — ') || `source ${p.sourceId}`;
    return `[${i + 1}] (source: ${source})\n${p.text}`;
  });
  if (!rule) return items.length ? `\n${items.join('\n\n')}` : '';
  if (items.length === 0) {
    return (
      `\n\nThe business's knowledge base has no facts on the prospect's latest message. State no price, number, ` +
      `date or promise that the instructions above do not give; say you will find out instead.`
    );
  }
  return (
    `\n\nFacts from the business's knowledge base. Answer questions from these; state no price, number, date or ` +
    `promise they do not support, and say you will find out when the answer is not here:\n${items.join('\n\n')}`
  );
}

/** Keeps which passages an agent message was written from, for the admin's conversation view. */
export async function recordPassagesUsed(db: Executor, message: { id: number; conversationId: number }, passages: KnowledgePassage[]) {
  if (passages.length === 0) return;
  await db
    .insert(knowledgeMessagePassages)
    .values({ messageId: message.id, conversationId: message.conversationId, passages: JSON.stringify(passages) })
    .onConflictDoNothing();
}

/** messageId → passages used, for one conversation. */
export async function passagesOfConversation(db: Executor, conversationId: number): Promise<Record<number, KnowledgePassage[]>> {
  const rows = await db.select().from(knowledgeMessagePassages).where(eq(knowledgeMessagePassages.conversationId, conversationId));
  return Object.fromEntries(rows.map((row) => [row.messageId, JSON.parse(row.passages) as KnowledgePassage[]]));
}
