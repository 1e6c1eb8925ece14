import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { conversations } from '../../db/schema/index.ts';

/**
 * A tool call held for the prospect's yes (`"confirm": true`, issue 22): stored on the conversation row, so a
 * restart between the agent's question and the prospect's answer loses nothing, and taken by one statement,
 * so it runs at most once. The stored arguments are the ones run — the prospect's yes confirms exactly what
 * the agent described.
 */
const pendingToolCall = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** The action in words, as the agent described it to the prospect. */
  action: z.string(),
  /** ISO time the call was held. */
  at: z.string(),
});
export type PendingToolCall = z.infer<typeof pendingToolCall>;

/** A held call older than this is dropped: a "yes" a day later answers something else. */
export const PENDING_TOOL_CALL_TTL_MS = 24 * 3600_000;

/** Holds `call` on the conversation (replacing one already held: the agent asked about the newer one). */
export async function holdToolCall(ctx: AppContext, conversationId: number, call: Omit<PendingToolCall, 'at'>): Promise<PendingToolCall> {
  const held: PendingToolCall = { ...call, at: new Date().toISOString() };
  await ctx.db.update(conversations).set({ pendingToolCall: held }).where(eq(conversations.id, conversationId));
  return held;
}

/** Takes (clears and answers) the held call, if any; null when none is held, or it had expired. */
export async function takePendingToolCall(ctx: AppContext, conversationId: number): Promise<PendingToolCall | null> {
  // The old value comes back from the same statement that clears it: two takers cannot both get it.
  const result = await ctx.db.execute(sql`
    UPDATE ${conversations} SET pending_tool_call = NULL
    FROM (SELECT id, pending_tool_call AS held FROM ${conversations} WHERE id = ${conversationId} FOR UPDATE) AS old
    WHERE ${conversations.id} = old.id AND old.held IS NOT NULL
    RETURNING old.held`);
  const parsed = pendingToolCall.safeParse((result as unknown as { rows: { held: unknown }[] }).rows[0]?.held);
  if (!parsed.success) return null;
  return Date.now() - Date.parse(parsed.data.at) > PENDING_TOOL_CALL_TTL_MS ? null : parsed.data;
}

/** Whether a call is held (no side effect). */
export async function hasPendingToolCall(ctx: AppContext, conversationId: number): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), isNotNull(conversations.pendingToolCall)));
  return Boolean(row);
}

const YES = /^(yes|yeah|yep|yup|sure|ok|okay|confirm|confirmed|correct|go ahead|please do|do it|sounds good|perfect|ja|oui|sí|si)\b/i;
const NO = /\b(no|not|don't|dont|wait|stop|cancel|rather|instead|but|change|different)\b/i;

/**
 * The prospect's answer confirms the held call: it starts with a plain yes (or a short equivalent) and carries
 * no "no", "wait" or change of mind. Anything else — a question, another time, silence — drops the call; the
 * agent can ask again. Deliberately strict: running an action nobody agreed to is worse than asking twice.
 */
export function isConfirmation(text: string | null | undefined): boolean {
  const said = (text ?? '').trim().replace(/^[\s"'“”]+|[\s.!"'“”]+$/g, '');
  if (!said || said.length > 120) return false;
  return YES.test(said) && !NO.test(said);
}
