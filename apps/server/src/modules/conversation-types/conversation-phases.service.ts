import { asc, eq } from 'drizzle-orm';
import type { conversationPhaseSaveBody } from '@sales-agent/shared/schemas/conversation-type';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { conversationPhases } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { presentPhase } from './conversation-types.presenter.ts';
import { assertTypeExists } from './conversation-types.service.ts';

type SaveInput = z.output<typeof conversationPhaseSaveBody>;

const phaseNotFound = () => notFound('Conversation phase not found', 'CONVERSATION_PHASE_NOT_FOUND');

/** The phases of a type, by index (spec §7.3: the path id is the type's). */
export async function listConversationPhases(ctx: AppContext, typeId: number) {
  await assertTypeExists(ctx, typeId);
  const rows = await ctx.db
    .select()
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, typeId))
    .orderBy(asc(conversationPhases.index), asc(conversationPhases.id));
  return rows.map(presentPhase);
}

/** Creates a phase (no id) or edits one (id); the type must exist. */
export async function saveConversationPhase(ctx: AppContext, input: SaveInput) {
  await assertTypeExists(ctx, input.conversationType.id);
  const fields = {
    conversationTypeId: input.conversationType.id,
    index: input.index,
    prompt: input.prompt,
    transitionPrompt: input.transitionPrompt,
    followUpPrompt: input.followUpPrompt,
  };
  if (input.id) {
    const [updated] = await ctx.db
      .update(conversationPhases)
      .set(fields)
      .where(eq(conversationPhases.id, input.id))
      .returning();
    if (!updated) throw phaseNotFound();
    return presentPhase(updated);
  }
  const [created] = await ctx.db.insert(conversationPhases).values(fields).returning();
  return presentPhase(created);
}

export async function deleteConversationPhase(ctx: AppContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(conversationPhases)
    .where(eq(conversationPhases.id, id))
    .returning({ id: conversationPhases.id });
  if (!deleted.length) throw phaseNotFound();
}
