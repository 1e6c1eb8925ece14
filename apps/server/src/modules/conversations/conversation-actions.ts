import { asc, eq } from 'drizzle-orm';
import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../../context.ts';
import { readLeadFields } from '../../conversations/lead-fields.ts';
import { readAnalysis } from '../../agent/outcome-analysis.ts';
import { agentToolCalls, bookings } from '../../db/schema/index.ts';
import { typeConfigText } from '../../conversations/type-config.ts';

/**
 * What the agent did on a conversation (issue 22), added to GET /api/conversation/{uuid}: its `bookings`
 * for everyone who may read it, the outcome analysis and the compact tool-call lines (`toolCalls`) for those
 * who may administer it only.
 */
export async function readConversationActions(ctx: AppContext, conversationId: number, canAdminister: boolean, typeId: number | null) {
  const typeConfig = await typeConfigText(ctx.db, typeId);
  const booked = await ctx.db
    .select({ start: bookings.start, end: bookings.end, timeZone: bookings.timeZone, provider: bookings.provider, externalId: bookings.externalId, status: bookings.status })
    .from(bookings)
    .where(eq(bookings.conversationId, conversationId))
    .orderBy(asc(bookings.start));
  const result = {
    bookings: booked.map((b) => ({ ...b, start: b.start.toISOString(), end: b.end.toISOString() })),
    leadFields: await readLeadFields(ctx.db, conversationId),
    leadFieldDefinitions: readConversationTypeConfig(typeConfig).leadFields ?? [],
    // The team's verdict on the lead (outcome, score, summary) is never shown to the visitor (issue 24).
    analysis: canAdminister ? await readAnalysis(ctx, conversationId) : null,
  };
  if (!canAdminister) return result;
  const calls = await ctx.db
    .select({ name: agentToolCalls.name, arguments: agentToolCalls.arguments, result: agentToolCalls.result, ok: agentToolCalls.ok, durationMs: agentToolCalls.durationMs, createdAt: agentToolCalls.createdAt })
    .from(agentToolCalls)
    .where(eq(agentToolCalls.conversationId, conversationId))
    .orderBy(asc(agentToolCalls.id));
  return { ...result, toolCalls: calls.map((c) => ({ ...c, createdAt: c.createdAt.toISOString() })) };
}
