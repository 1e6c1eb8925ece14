import { OPERATOR_NOTES } from '../../conversations/operator-notes.ts';
import type { AppContext } from '../../context.ts';
import { getLlmProvider } from './select-provider.ts';

/** Why a real prospect's conversation went to a person instead of the offline demo agent (spec §3 phase -2). */
export const NO_LLM_REASON = OPERATOR_NOTES.noLlm.admin;

/**
 * No demo text to real people (issue 19, docs/agent.md): without an LLM the offline demo agent answers web
 * chats (no prospect) and prospects of the webhook simulator only, unless DEMO_AGENT_ON_LIVE_CHANNELS says a
 * sandbox account may get it. Asked by every path that would write to a prospect: the inbound message, the
 * turn (a conversation a person handed back to a working phase) and the follow-up. A classic call's spoken
 * turn is not asked: the team placed the call and the demo agent speaks as such there.
 */
export function demoAgentMustNotAnswer(ctx: Pick<AppContext, 'config'>, prospect: { simulated: boolean } | null): boolean {
  if (!prospect || prospect.simulated || ctx.config.DEMO_AGENT_ON_LIVE_CHANNELS) return false;
  return getLlmProvider(ctx).kind === 'offline-demo';
}
