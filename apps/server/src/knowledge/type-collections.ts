import { asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';
import { conversationTypeKnowledge, knowledgeCollections } from '../db/schema/index.ts';
import { badRequest } from '../lib/errors.ts';

/** The collections a conversation type answers from (issue 21 `knowledgeCollectionIds`), in id order. */
export async function typeCollectionIds(db: Executor, typeId: number): Promise<number[]> {
  const rows = await db
    .select({ id: conversationTypeKnowledge.collectionId })
    .from(conversationTypeKnowledge)
    .where(eq(conversationTypeKnowledge.conversationTypeId, typeId))
    .orderBy(asc(conversationTypeKnowledge.collectionId));
  return rows.map((row) => row.id);
}

/** 400 naming the first id that is no collection, before anything is saved. */
export async function assertCollectionsExist(db: Executor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set(
    (await db.select({ id: knowledgeCollections.id }).from(knowledgeCollections).where(inArray(knowledgeCollections.id, ids))).map((r) => r.id),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`knowledgeCollectionIds: there is no knowledge collection ${missing}.`, 'VALIDATION_ERROR');
}

/** Replaces the type's collections with `ids`. */
export async function setTypeCollections(db: Executor, typeId: number, ids: number[]): Promise<void> {
  await db.delete(conversationTypeKnowledge).where(eq(conversationTypeKnowledge.conversationTypeId, typeId));
  const unique = [...new Set(ids)];
  if (unique.length > 0) {
    await db.insert(conversationTypeKnowledge).values(unique.map((collectionId) => ({ conversationTypeId: typeId, collectionId })));
  }
}
