import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import type { AppContext } from '../context.ts';
import { agentError } from '../conversations/agent-errors.ts';
import { askLlm, type DeferredUsage } from './ask-llm.ts';
import { LlmError, type LlmRequest } from './llm/provider.ts';
import { guardRequest, type HistoryMessage, type Playbook } from './prompts.ts';

/** `by`: which check refused the last draft — the knowledge check (issue 21) or the checkingPrompt guard. */
export type GuardedReply<T> = { ok: true; value: T } | { ok: false; reason: string; by: 'knowledge' | 'guard' };

export interface GuardOptions {
  deferred?: DeferredUsage[];
  /**
   * Issue 21: a type with knowledge. `check` refuses a draft stating what the passages and prompts do not
   * support (knowledge/grounding.ts), before the checkingPrompt guard, which gets the passages too.
   */
  knowledge?: { passages: KnowledgePassage[]; check: (reply: string) => string | null };
}

/**
 * Drafts with `write` and applies the knowledge check and the checkingPrompt guard; a failing draft is
 * written once more with the reason, and a second failure gives up (the caller sends the conversation to a
 * human, or for the knowledge check says it will find out).
 */
export async function writeGuardedReply<T extends { reply: string; needsHuman?: boolean }>(
  ctx: AppContext,
  conversationId: number,
  playbook: Playbook,
  phaseIndex: number,
  history: HistoryMessage[],
  write: (rejection?: string) => LlmRequest<T>,
  options: GuardOptions = {},
): Promise<GuardedReply<T>> {
  const { deferred, knowledge } = options;
  let rejection: { reason: string; by: 'knowledge' | 'guard' } | undefined;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const value = await askLlm(ctx, conversationId, write(rejection?.reason), deferred);
    const reply = value.reply.trim();
    if (!reply && !value.needsHuman) {
      throw new LlmError(agentError('invalid_response', null, 'The model wrote an empty reply.'));
    }
    const unsupported = reply && knowledge ? knowledge.check(reply) : null;
    if (unsupported) {
      rejection = { reason: unsupported, by: 'knowledge' };
      continue;
    }
    if (!reply || !playbook.checkingPrompt?.trim()) return { ok: true, value: { ...value, reply } };
    const verdict = await askLlm(ctx, conversationId, guardRequest(playbook, phaseIndex, history, reply, knowledge?.passages), deferred);
    if (verdict.pass) return { ok: true, value: { ...value, reply } };
    rejection = { reason: verdict.reason || 'The reply breaks the checking rules.', by: 'guard' };
  }
  return { ok: false, ...rejection! };
}
