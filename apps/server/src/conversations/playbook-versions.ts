import { and, asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '../db/after-commit.ts';
import { conversationPhases, conversationTypeKnowledge, conversationTypes, conversationTypeVersions } from '../db/schema/index.ts';
import type { PlaybookSnapshot } from '../db/schema/versions.ts';

export type { PlaybookSnapshot };

/** Which playbook: the type's draft (its own rows) or a published version number. */
export type VersionRef = 'draft' | number;

/** The type's draft (its row, phases and knowledge links) as a snapshot; null when the type does not exist. */
export async function draftSnapshot(db: Executor, typeId: number): Promise<PlaybookSnapshot | null> {
  const [type] = await db.select().from(conversationTypes).where(eq(conversationTypes.id, typeId)).limit(1);
  if (!type) return null;
  const phases = await db
    .select()
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, typeId))
    .orderBy(asc(conversationPhases.index), asc(conversationPhases.id));
  const links = await db
    .select({ id: conversationTypeKnowledge.collectionId })
    .from(conversationTypeKnowledge)
    .where(eq(conversationTypeKnowledge.conversationTypeId, typeId))
    .orderBy(asc(conversationTypeKnowledge.collectionId));
  return {
    rolePrompt: type.rolePrompt,
    triggerConversationPrompt: type.triggerConversationPrompt,
    checkingPrompt: type.checkingPrompt,
    errorPrompt: type.errorPrompt,
    initialMessage: type.initialMessage,
    config: type.config,
    phases: phases.map((p) => ({ index: p.index, prompt: p.prompt, transitionPrompt: p.transitionPrompt, followUpPrompt: p.followUpPrompt })),
    knowledgeCollectionIds: links.map((l) => l.id),
  };
}

/** A published version's snapshot, or the draft; null when the type or version does not exist. */
export async function readSnapshot(db: Executor, typeId: number, ref: VersionRef): Promise<PlaybookSnapshot | null> {
  if (ref === 'draft') return draftSnapshot(db, typeId);
  const [row] = await db
    .select({ snapshot: conversationTypeVersions.snapshot })
    .from(conversationTypeVersions)
    .where(and(eq(conversationTypeVersions.conversationTypeId, typeId), eq(conversationTypeVersions.version, ref)))
    .limit(1);
  return row?.snapshot ?? null;
}

/** The newest published version number of the type, or null when it was never published. */
export async function latestVersion(db: Executor, typeId: number): Promise<number | null> {
  const [row] = await db
    .select({ version: conversationTypeVersions.version })
    .from(conversationTypeVersions)
    .where(eq(conversationTypeVersions.conversationTypeId, typeId))
    .orderBy(desc(conversationTypeVersions.version))
    .limit(1);
  return row?.version ?? null;
}

/** Parses 'draft' or a positive version number; null for anything else. */
export function parseVersionRef(text: string | number | undefined | null): VersionRef | null {
  if (text === undefined || text === null || text === 'draft') return 'draft';
  const n = typeof text === 'number' ? text : /^\d+$/.test(text) ? Number(text) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}
