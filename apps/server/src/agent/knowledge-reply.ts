import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../context.ts';
import { groundingProblem } from '../knowledge/grounding.ts';
import type { TurnKnowledge } from '../knowledge/turn-knowledge.ts';
import type { DeferredUsage } from './ask-llm.ts';
import { writeGuardedReply } from './guarded-reply.ts';
import { draftRequest, type HistoryMessage, type Playbook } from './prompts.ts';

/** What the agent says when the knowledge base does not support an answer and it will find out (issue 21). */
export const FIND_OUT_REPLY = "That's a good question, and I don't want to give you a wrong answer: let me check with the team and get back to you.";
/** The holding message when the type hands such a question to a person. */
export const HAND_OVER_REPLY = "That's a good question; a colleague who knows the exact answer will get back to you shortly.";

export type KnowledgeDraft =
  | {
      ok: true;
      reply: string;
      needsHuman: boolean;
      reason: string;
      /** The question the knowledge did not answer (to record), or null. */
      unknownQuestion: string | null;
    }
  | { ok: false; reason: string };

/**
 * The draft of a turn with the knowledge check (issue 21 item 3): without knowledge (a type with no
 * collections) it is the plain guarded draft. With it, the prompt carries the passages, a draft stating a
 * number the passages and prompts do not support is written again, and a second such draft is replaced by
 * "I will find out" — or a hand-over, per the type's `knowledge.whenUnknown` — and the question recorded. A
 * draft that itself says the facts did not answer (`unknownQuestion`) is recorded too, and handed over when
 * the type says so. `ok: false` is the checkingPrompt guard failing twice, as before.
 */
export async function writeKnowledgeDraft(
  ctx: AppContext,
  args: {
    conversationId: number;
    playbook: Playbook;
    phase: number;
    history: HistoryMessage[];
    knowledge: TurnKnowledge | null;
    typeConfig: string | null | undefined;
    deferred: DeferredUsage[];
  },
): Promise<KnowledgeDraft> {
  const { playbook, phase, history, knowledge } = args;
  const passages = knowledge?.passages;
  const support = knowledge ? draftRequest(playbook, phase, history, undefined, passages).messages.map((m) => m.content) : [];
  const draft = await writeGuardedReply(
    ctx,
    args.conversationId,
    playbook,
    phase,
    history,
    (rejection) => draftRequest(playbook, phase, history, rejection, passages),
    { deferred: args.deferred, ...(knowledge ? { knowledge: { passages: knowledge.passages, check: (reply) => groundingProblem(reply, support) } } : {}) },
  );
  const handOver = readConversationTypeConfig(args.typeConfig).knowledge?.whenUnknown === 'hand-over';
  if (!draft.ok) {
    if (draft.by !== 'knowledge' || !knowledge) return { ok: false, reason: draft.reason };
    return {
      ok: true,
      reply: handOver ? HAND_OVER_REPLY : FIND_OUT_REPLY,
      needsHuman: handOver,
      reason: `The knowledge base does not support the answer: ${draft.reason}`,
      unknownQuestion: knowledge.question,
    };
  }
  const { reply, needsHuman, reason } = draft.value;
  const flagged = knowledge ? draft.value.unknownQuestion?.trim() : '';
  if (!flagged || !knowledge) return { ok: true, reply, needsHuman, reason, unknownQuestion: null };
  return {
    ok: true,
    reply,
    needsHuman: needsHuman || handOver,
    reason: needsHuman ? reason : `The knowledge base does not answer: ${flagged}`,
    unknownQuestion: flagged,
  };
}
