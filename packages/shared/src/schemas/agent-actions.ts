import { z } from 'zod';
import { leadFieldDefinition, leadFieldsView } from './lead-fields.ts';

/** A meeting the agent booked (issue 22): instants in ISO 8601 UTC, shown in `timeZone`. */
export const bookingView = z.object({
  start: z.string(),
  end: z.string(),
  timeZone: z.string(),
  provider: z.enum(['ghl', 'calcom', 'demo']),
  externalId: z.string(),
  /** `rescheduled`: moved to the booking that follows it (a new id at the provider). */
  status: z.enum(['booked', 'rescheduled', 'cancelled']),
});

/** One tool the agent called: the compact line admins see in the conversation view (never the prospect). */
export const toolCallView = z.object({
  name: z.string(),
  arguments: z.unknown(),
  result: z.string(),
  ok: z.boolean(),
  durationMs: z.number(),
  createdAt: z.string(),
});

/** The outcome analysis of an ended conversation (issue 22): a summary, one of the type's outcomes, a 0–100 score. */
export const conversationAnalysisView = z.object({
  summary: z.string(),
  outcome: z.string(),
  score: z.number().int().min(0).max(100),
});
export type ConversationAnalysisView = z.infer<typeof conversationAnalysisView>;

/** What GET /api/conversation/{uuid} answers of the agent's actions; `toolCalls` for admins only. */
export const conversationActions = {
  bookings: z.array(bookingView),
  /** What the agent (or a person) recorded of the type's lead fields, key → value. */
  leadFields: leadFieldsView,
  /** The type's lead field declarations, so the panel can label and edit them. */
  leadFieldDefinitions: z.array(leadFieldDefinition),
  toolCalls: z.array(toolCallView).optional(),
  /** Written once the conversation ends (docs/agent.md "Outcome analysis"); null before. */
  analysis: conversationAnalysisView.nullable(),
};
