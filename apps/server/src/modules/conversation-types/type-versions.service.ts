import { desc, eq, inArray } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import {
  draftSnapshot,
  latestVersion,
  type PlaybookSnapshot,
  readSnapshot,
  type VersionRef,
} from '../../conversations/playbook-versions.ts';
import { conversationPhases, conversationTypes, conversationTypeVersions, knowledgeCollections, users } from '../../db/schema/index.ts';
import { setTypeCollections } from '../../knowledge/type-collections.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { diffLines, flattenKeys } from '../../lib/line-diff.ts';
import { typeNotFound } from './conversation-types.service.ts';

export const versionNotFound = (ref: VersionRef) => notFound(`Version ${ref} of this conversation type does not exist.`, 'TYPE_VERSION_NOT_FOUND');

/** The type's versions, newest first, with who published them; `current` is the version new conversations pin. */
export async function listTypeVersions(ctx: AppContext, typeId: number) {
  if (!(await draftSnapshot(ctx.db, typeId))) throw typeNotFound();
  const rows = await ctx.db
    .select({
      version: conversationTypeVersions.version,
      note: conversationTypeVersions.note,
      createdAt: conversationTypeVersions.createdAt,
      createdBy: users.email,
    })
    .from(conversationTypeVersions)
    .leftJoin(users, eq(users.id, conversationTypeVersions.createdByUserId))
    .where(eq(conversationTypeVersions.conversationTypeId, typeId))
    .orderBy(desc(conversationTypeVersions.version));
  return {
    current: rows[0]?.version ?? null,
    versions: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), createdBy: r.createdBy ?? null })),
  };
}

/** A version's (or the draft's) playbook; config secrets stay sealed, so callers mask before answering. */
export async function getTypeVersion(ctx: AppContext, typeId: number, ref: VersionRef): Promise<PlaybookSnapshot> {
  const snapshot = await readSnapshot(ctx.db, typeId, ref);
  if (snapshot) return snapshot;
  if (!(await draftSnapshot(ctx.db, typeId))) throw typeNotFound();
  throw versionNotFound(ref);
}

/**
 * Publishes the draft as the next numbered version (immutable from then on). New conversations of the type
 * pin it; running ones keep theirs. Two admins publishing at once get two numbers (the unique index decides).
 */
export async function publishTypeVersion(ctx: AppContext, typeId: number, note: string | null, actor: Actor | null): Promise<{ version: number }> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const snapshot = await draftSnapshot(tx, typeId);
        if (!snapshot) throw typeNotFound();
        const version = ((await latestVersion(tx, typeId)) ?? 0) + 1;
        await tx.insert(conversationTypeVersions).values({ conversationTypeId: typeId, version, note: note?.trim() || null, snapshot, createdByUserId: actor?.id ?? null });
        return { version };
      });
    } catch (err) {
      if (err instanceof AppError || attempt >= 2) throw err;
    }
  }
}

/** Writes a version's playbook into the draft (the type's row, phases and knowledge links): the new draft. */
export async function restoreTypeVersion(ctx: AppContext, typeId: number, version: number): Promise<void> {
  const snapshot = await getTypeVersion(ctx, typeId, version);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(conversationTypes)
      .set({
        rolePrompt: snapshot.rolePrompt,
        triggerConversationPrompt: snapshot.triggerConversationPrompt,
        checkingPrompt: snapshot.checkingPrompt,
        errorPrompt: snapshot.errorPrompt,
        initialMessage: snapshot.initialMessage,
        config: snapshot.config,
      })
      .where(eq(conversationTypes.id, typeId));
    await tx.delete(conversationPhases).where(eq(conversationPhases.conversationTypeId, typeId));
    if (snapshot.phases.length) await tx.insert(conversationPhases).values(snapshot.phases.map((p) => ({ conversationTypeId: typeId, ...p })));
    // A collection deleted since the version was published is left out.
    const ids = snapshot.knowledgeCollectionIds.length
      ? (await tx.select({ id: knowledgeCollections.id }).from(knowledgeCollections).where(inArray(knowledgeCollections.id, snapshot.knowledgeCollectionIds))).map((r) => r.id)
      : [];
    await setTypeCollections(tx, typeId, ids);
  });
}

const PROMPT_FIELDS = ['rolePrompt', 'triggerConversationPrompt', 'checkingPrompt', 'errorPrompt', 'initialMessage'] as const;
const SECRET_KEY = /apiKey$/i;

/**
 * A readable diff between two versions ('draft' or N): each prompt line by line, each phase's prompts, the
 * config key by key (secrets shown as "(changed)"), and the knowledge links.
 */
export async function diffTypeVersions(ctx: AppContext, typeId: number, from: VersionRef, to: VersionRef) {
  const a = await getTypeVersion(ctx, typeId, from);
  const b = await getTypeVersion(ctx, typeId, to);
  const prompts = PROMPT_FIELDS.map((field) => ({ field, changed: (a[field] ?? '') !== (b[field] ?? ''), lines: diffLines(a[field] ?? '', b[field] ?? '') }));
  const count = Math.max(a.phases.length, b.phases.length);
  const phases = [];
  for (let i = 0; i < count; i += 1) {
    const pa = a.phases[i];
    const pb = b.phases[i];
    const fields = (['prompt', 'transitionPrompt', 'followUpPrompt'] as const).map((field) => ({
      field,
      changed: (pa?.[field] ?? '') !== (pb?.[field] ?? ''),
      lines: diffLines(pa?.[field] ?? '', pb?.[field] ?? ''),
    }));
    phases.push({ index: i, status: !pa ? 'added' : !pb ? 'removed' : fields.some((f) => f.changed) ? 'changed' : 'same', fields });
  }
  const ka = flattenKeys(parseConfig(a.config));
  const kb = flattenKeys(parseConfig(b.config));
  const config = [...new Set([...Object.keys(ka), ...Object.keys(kb)])]
    .sort()
    .filter((key) => JSON.stringify(ka[key]) !== JSON.stringify(kb[key]))
    .map((key) => {
      const secret = SECRET_KEY.test(key);
      const show = (v: unknown) => (v === undefined ? null : secret ? '(secret)' : JSON.stringify(v));
      return { key, before: show(ka[key]), after: show(kb[key]) };
    });
  const la = new Set(a.knowledgeCollectionIds);
  const lb = new Set(b.knowledgeCollectionIds);
  return {
    from: String(from),
    to: String(to),
    prompts,
    phases,
    config,
    knowledge: { added: [...lb].filter((id) => !la.has(id)), removed: [...la].filter((id) => !lb.has(id)) },
  };
}

function parseConfig(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
