import type { CannedReply, CannedReplyBody } from '@sales-agent/shared/schemas/canned-reply';
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { cannedReplies } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../lib/errors.ts';

/** The team's saved replies (issue 24, docs/workspace.md "Canned replies"): one list, ADMIN keeps it. */

const present = (row: typeof cannedReplies.$inferSelect): CannedReply => ({
  id: row.id,
  shortcut: row.shortcut,
  text: row.text,
  updatedAt: row.updatedAt.toISOString(),
});

export async function listCannedReplies(ctx: AppContext): Promise<CannedReply[]> {
  const rows = await ctx.db.select().from(cannedReplies).orderBy(asc(cannedReplies.shortcut));
  return rows.map(present);
}

/** A shortcut is one reply's: a second one is refused in words (checked first, the unique index backs it). */
async function refuseTakenShortcut(ctx: AppContext, shortcut: string, exceptId?: number) {
  const [taken] = await ctx.db
    .select({ id: cannedReplies.id })
    .from(cannedReplies)
    .where(and(eq(cannedReplies.shortcut, shortcut), exceptId ? ne(cannedReplies.id, exceptId) : undefined));
  if (taken) throw conflict(`A canned reply with the shortcut /${shortcut} exists already. Choose another shortcut.`, 'CANNED_REPLY_EXISTS');
}

export async function createCannedReply(ctx: AppContext, actor: Actor, body: CannedReplyBody): Promise<CannedReply> {
  await refuseTakenShortcut(ctx, body.shortcut);
  const [row] = await ctx.db
    .insert(cannedReplies)
    .values({ shortcut: body.shortcut, text: body.text, createdByUserId: actor.id })
    .onConflictDoNothing()
    .returning();
  if (!row) throw conflict(`A canned reply with the shortcut /${body.shortcut} exists already. Choose another shortcut.`, 'CANNED_REPLY_EXISTS');
  return present(row);
}

const missing = () => notFound('This canned reply no longer exists.', 'CANNED_REPLY_NOT_FOUND');

export async function changeCannedReply(ctx: AppContext, id: number, body: Partial<CannedReplyBody>): Promise<CannedReply> {
  if (body.shortcut !== undefined) await refuseTakenShortcut(ctx, body.shortcut, id);
  const [row] = await ctx.db
    .update(cannedReplies)
    .set({ ...body, updatedAt: sql`now()` })
    .where(eq(cannedReplies.id, id))
    .returning();
  if (!row) throw missing();
  return present(row);
}

export async function deleteCannedReply(ctx: AppContext, id: number): Promise<void> {
  const deleted = await ctx.db.delete(cannedReplies).where(eq(cannedReplies.id, id)).returning({ id: cannedReplies.id });
  if (deleted.length === 0) throw missing();
}
