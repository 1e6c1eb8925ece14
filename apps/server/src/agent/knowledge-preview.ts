import { asc, eq } from 'drizzle-orm';
import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import type { AppContext } from '../context.ts';
import { agentSettingsOf } from '../conversations/conversation-store.ts';
import { conversationPhases, conversationTypes } from '../db/schema/index.ts';
import { retrieveRelevant } from '../knowledge/turn-knowledge.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { LlmError } from './llm/provider.ts';
import type { DeferredUsage } from './ask-llm.ts';
import { writeKnowledgeDraft } from './knowledge-reply.ts';
import { getLlmProvider } from './llm/select-provider.ts';
import type { Playbook } from './prompts.ts';

export interface KnowledgePreview {
  /** What the agent would send (or the holding message of a hand-over). */
  reply: string;
  /** The agent would hand the conversation to a person. */
  needsHuman: boolean;
  /** The knowledge did not answer: in a conversation the question would join the unanswered list. */
  unknown: boolean;
  passages: KnowledgePassage[];
  /** The offline demo agent answered (no LLM configured). */
  demo: boolean;
}

/**
 * Issue 21 item 5, "the answer the agent of a chosen type would give": the first phase's draft of that type
 * for a prospect asking `question`, written from the passages of `collectionIds`, through the same knowledge
 * check as a turn. Nothing is stored and no tool is called; the tokens are metered but booked on no
 * conversation. The checkingPrompt guard failing twice is reported as a hand-over with its reason.
 */
export async function previewKnowledgeAnswer(ctx: AppContext, typeId: number, collectionIds: number[], question: string): Promise<KnowledgePreview> {
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, typeId));
  if (!type) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');
  const phases = await ctx.db
    .select()
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, typeId))
    .orderBy(asc(conversationPhases.index));
  const settings = agentSettingsOf(ctx, type.config);
  const playbook: Playbook = {
    rolePrompt: type.rolePrompt,
    triggerConversationPrompt: type.triggerConversationPrompt,
    checkingPrompt: type.checkingPrompt,
    errorPrompt: type.errorPrompt,
    phases: phases.map((p) => ({ prompt: p.prompt, transitionPrompt: p.transitionPrompt, followUpPrompt: p.followUpPrompt })),
    model: settings.model,
    temperature: settings.temperature,
  };
  const passages = await retrieveRelevant(ctx, collectionIds, question);
  const unbooked: DeferredUsage[] = [];
  const draft = await writeKnowledgeDraft(ctx, {
    conversationId: 0,
    playbook,
    phase: 0,
    history: [{ role: 'PROSPECT', message: question }],
    knowledge: { question, passages },
    typeConfig: type.config,
    deferred: unbooked,
  }).catch((err: unknown) => {
    if (!(err instanceof LlmError)) throw err;
    throw new AppError(502, 'LLM_FAILED', `The agent's answer could not be written: ${err.record.message}`);
  });
  const demo = getLlmProvider(ctx).kind === 'offline-demo';
  if (!draft.ok) return { reply: `(The checking prompt refused the draft twice: ${draft.reason})`, needsHuman: true, unknown: false, passages, demo };
  return { reply: draft.reply, needsHuman: draft.needsHuman, unknown: draft.unknownQuestion !== null, passages, demo };
}
