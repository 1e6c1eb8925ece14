import type { AppContext } from '../context.ts';
import { agentError } from '../conversations/agent-errors.ts';
import { askLlm, type DeferredUsage } from './ask-llm.ts';
import { LlmError, type LlmRequest } from './llm/provider.ts';
import { guardRequest, type HistoryMessage, type Playbook } from './prompts.ts';

export type GuardedReply<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Drafts with `write` and applies the checkingPrompt guard; a failing draft is written once more with the
 * guard's reason, and a second failure gives up (the caller sends the conversation to a human).
 */
export async function writeGuardedReply<T extends { reply: string; needsHuman?: boolean }>(
  ctx: AppContext,
  conversationId: number,
  playbook: Playbook,
  phaseIndex: number,
  history: HistoryMessage[],
  write: (rejection?: string) => LlmRequest<T>,
  options: { deferred?: DeferredUsage[] } = {},
): Promise<GuardedReply<T>> {
  const { deferred } = options;
  let rejection: string | undefined;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const value = await askLlm(ctx, conversationId, write(rejection), deferred);
    const reply = value.reply.trim();
    if (!reply && !value.needsHuman) {
      throw new LlmError(agentError('invalid_response', null, 'The model wrote an empty reply.'));
    }
    if (!reply || !playbook.checkingPrompt?.trim()) return { ok: true, value: { ...value, reply } };
    const verdict = await askLlm(ctx, conversationId, guardRequest(playbook, phaseIndex, history, reply), deferred);
    if (verdict.pass) return { ok: true, value: { ...value, reply } };
    rejection = verdict.reason || 'The reply breaks the checking rules.';
  }
  return { ok: false, reason: rejection! };
}
