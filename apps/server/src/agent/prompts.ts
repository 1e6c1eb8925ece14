import { z } from 'zod';
import type { KnowledgePassage } from '@sales-agent/shared/schemas/knowledge';
import { knowledgePromptBlock } from '../knowledge/turn-knowledge.ts';
import type { AgentSettings, HistoryMessage, LoadedConversation } from '../conversations/conversation-store.ts';
import type { ChatMessage, JsonAnswer, LlmPurpose, LlmRequest, PlaybookFacts } from './llm/provider.ts';

/** The slice of a conversation type a prompt needs. */
export interface Playbook {
  rolePrompt: string;
  triggerConversationPrompt: string | null;
  checkingPrompt: string | null;
  errorPrompt: string;
  phases: { prompt: string; transitionPrompt: string; followUpPrompt: string | null }[];
  model: string;
  temperature: number;
}

export type { HistoryMessage };

/** Only the latest messages go to the model: enough context, bounded cost. */
export const HISTORY_LIMIT = 40;

/** Decisions use temperature 0 so the same conversation gets the same decision. */
const DECISION_TEMPERATURE = 0;

const objectSchema = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const str = { type: 'string' };
const bool = { type: 'boolean' };

export const triggerAnswer: JsonAnswer<{ engage: boolean; reason: string }> = {
  name: 'trigger_decision',
  schema: objectSchema({ engage: bool, reason: str }),
  parse: z.object({ engage: z.boolean(), reason: z.string() }),
};
export const transitionAnswer: JsonAnswer<{ advance: boolean; reason: string }> = {
  name: 'transition_decision',
  schema: objectSchema({ advance: bool, reason: str }),
  parse: z.object({ advance: z.boolean(), reason: z.string() }),
};
export const draftAnswer: JsonAnswer<{ reply: string; needsHuman: boolean; reason: string }> = {
  name: 'draft_reply',
  schema: objectSchema({ reply: str, needsHuman: bool, reason: str }),
  parse: z.object({ reply: z.string(), needsHuman: z.boolean(), reason: z.string() }),
};
/**
 * The draft of a type with knowledge collections (issue 21): the reply, plus the prospect's question the
 * knowledge did not answer (empty when none), which the team sees in the unanswered-questions list.
 */
export const knowledgeDraftAnswer: JsonAnswer<{ reply: string; needsHuman: boolean; reason: string; unknownQuestion: string }> = {
  name: 'draft_reply',
  schema: objectSchema({
    reply: str,
    needsHuman: bool,
    reason: str,
    unknownQuestion: { type: 'string', description: "The prospect's question the facts do not answer; empty when none." },
  }),
  parse: z.object({ reply: z.string(), needsHuman: z.boolean(), reason: z.string(), unknownQuestion: z.string().default('') }),
};
export const guardAnswer: JsonAnswer<{ pass: boolean; reason: string }> = {
  name: 'guard_check',
  schema: objectSchema({ pass: bool, reason: str }),
  parse: z.object({ pass: z.boolean(), reason: z.string() }),
};
export const ratingAnswer: JsonAnswer<{ rating: number; reason: string }> = {
  name: 'conversation_rating',
  schema: objectSchema({ rating: { type: 'integer', description: '1 (bad) to 10 (excellent)' }, reason: str }),
  // Strict mode does not promise numeric bounds on every server, so the range is enforced here.
  parse: z.object({ rating: z.number().transform((n) => Math.min(10, Math.max(1, Math.round(n)))), reason: z.string() }),
};
export const followUpAnswer: JsonAnswer<{ reply: string }> = {
  name: 'follow_up',
  schema: objectSchema({ reply: str }),
  parse: z.object({ reply: z.string() }),
};

/** "Prospect: …" / "Agent: …" lines, for prompts that judge a conversation rather than continue it. */
export function transcriptOf(history: HistoryMessage[]): string {
  const lines = history.slice(-HISTORY_LIMIT).map((m) => `${speaker(m.role)}: ${m.message}`);
  return lines.length ? lines.join('\n') : '(no messages yet)';
}

const speaker = (role: HistoryMessage['role']) => (role === 'PROSPECT' ? 'Prospect' : role === 'AGENT' ? 'Agent' : 'Note');

/** The history as chat turns: the prospect is the user, the agent is the assistant. */
function chatOf(history: HistoryMessage[]): ChatMessage[] {
  return history.slice(-HISTORY_LIMIT).map((m) =>
    m.role === 'PROSPECT'
      ? { role: 'user', content: m.message }
      : m.role === 'AGENT'
        ? { role: 'assistant', content: m.message }
        : { role: 'system', content: `Note: ${m.message}` },
  );
}

import { toolNotesOf } from './tools/tool-notes.ts';

export function factsOf(playbook: Playbook, phaseIndex: number, history: HistoryMessage[]): PlaybookFacts {
  const phase = playbook.phases[Math.min(phaseIndex, playbook.phases.length - 1)];
  const prospect = history.filter((m) => m.role === 'PROSPECT');
  return {
    phaseIndex,
    phaseCount: playbook.phases.length,
    phasePrompt: phase?.prompt ?? '',
    followUpPrompt: phase?.followUpPrompt ?? null,
    prospectMessageCount: prospect.length,
    lastProspectMessage: prospect.at(-1)?.message ?? null,
    toolNotes: toolNotesOf(history),
  };
}

function phaseHeader(playbook: Playbook, phaseIndex: number): string {
  const phase = playbook.phases[phaseIndex];
  return `The conversation is in phase ${phaseIndex + 1} of ${playbook.phases.length}.\nGoal of this phase: ${phase?.prompt ?? ''}`;
}

function request<T>(
  purpose: LlmPurpose,
  answer: JsonAnswer<T>,
  messages: ChatMessage[],
  playbook: Playbook,
  facts: PlaybookFacts,
  temperature = DECISION_TEMPERATURE,
): LlmRequest<T> {
  return { purpose, answer, messages, model: playbook.model, temperature, facts };
}

/** Should the agent engage in a new inbound conversation at all (triggerConversationPrompt)? */
export function triggerRequest(playbook: Playbook, history: HistoryMessage[]) {
  return request('trigger', triggerAnswer, [
    {
      role: 'system',
      content:
        `You decide whether a sales agent should answer a new inbound conversation.\n` +
        `The agent: ${playbook.rolePrompt}\nEngage only when this holds: ${playbook.triggerConversationPrompt}\n` +
        `Answer JSON {"engage": boolean, "reason": string}.`,
    },
    { role: 'user', content: transcriptOf(history) },
  ], playbook, factsOf(playbook, 0, history));
}

/** Has the current phase's transitionPrompt been met, so the conversation moves to the next phase? */
export function transitionRequest(playbook: Playbook, phaseIndex: number, history: HistoryMessage[]) {
  return request('transition', transitionAnswer, [
    {
      role: 'system',
      content:
        `You review a sales conversation. The agent: ${playbook.rolePrompt}\n${phaseHeader(playbook, phaseIndex)}\n` +
        `Condition to move to the next phase: ${playbook.phases[phaseIndex].transitionPrompt}\n` +
        `Decide from the conversation so far whether the condition is met. Answer JSON {"advance": boolean, "reason": string}.`,
    },
    { role: 'user', content: transcriptOf(history) },
  ], playbook, factsOf(playbook, phaseIndex, history));
}

/**
 * The next reply to the prospect; `rejection` is the guard's reason when this is the one retry. With
 * `knowledge` (a type with knowledge collections, issue 21) the prompt carries the retrieved passages and the
 * answer names the question they did not answer.
 */
export function draftRequest(playbook: Playbook, phaseIndex: number, history: HistoryMessage[], rejection?: string, knowledge?: KnowledgePassage[]) {
  const retry = rejection
    ? `\nYour previous draft was rejected by the reviewer for this reason: ${rejection}\nWrite a different reply that avoids it.`
    : '';
  const knowledgeBlock = knowledge ? knowledgePromptBlock(knowledge) : '';
  const shape = knowledge
    ? `{"reply": string, "needsHuman": boolean, "reason": string, "unknownQuestion": string}`
    : `{"reply": string, "needsHuman": boolean, "reason": string}`;
  const unknown = knowledge
    ? ` When the prospect asks something the facts do not answer, say you will find out, and put their question in unknownQuestion (else leave it empty).`
    : '';
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        `${playbook.rolePrompt}\n\n${phaseHeader(playbook, phaseIndex)}${knowledgeBlock}${retry}\n\n` +
        `Write your next message to the prospect. Answer JSON ${shape}. ` +
        `Set needsHuman to true only when a human colleague must take over (the prospect asks for a person, or ` +
        `something you cannot handle); the reply is then a short holding message, and reason says why.${unknown}`,
    },
    ...chatOf(history),
  ];
  const facts = { ...factsOf(playbook, phaseIndex, history), ...(knowledge ? { knowledge } : {}) };
  if (knowledge) return request('draft', knowledgeDraftAnswer, messages, playbook, facts, playbook.temperature);
  return request('draft', draftAnswer as JsonAnswer<{ reply: string; needsHuman: boolean; reason: string; unknownQuestion?: string }>, messages, playbook, facts, playbook.temperature);
}

/**
 * The closing reply when a turn reaches the end phase (issue 24 item 7): answers the prospect's last message and
 * confirms what happens next, never leaving it unanswered. Something the agent cannot do or promise is handed
 * to a person (needsHuman). Asked as a draft (the guard checks it); its facts say the playbook has ended.
 */
export function closingRequest(playbook: Playbook, lastPhase: number, history: HistoryMessage[], rejection?: string) {
  const retry = rejection
    ? `\nYour previous draft was rejected by the reviewer for this reason: ${rejection}\nWrite a different reply that avoids it.`
    : '';
  return request('draft', draftAnswer, [
    {
      role: 'system',
      content:
        `${playbook.rolePrompt}\n\n${phaseHeader(playbook, lastPhase)}\nThis was the last phase: the conversation ends with your ` +
        `next message.${retry}\n\nWrite the closing message: answer the prospect's last message and confirm clearly what ` +
        `happens next (who does what, and when). Do not ask new questions. Answer JSON {"reply": string, "needsHuman": ` +
        `boolean, "reason": string}. Set needsHuman to true when the prospect's last message asks for something you cannot ` +
        `do or confirm yourself (a colleague must follow up); the reply is then a short message saying a colleague will.`,
    },
    ...chatOf(history),
  ], playbook, { ...factsOf(playbook, lastPhase, history), closing: true }, playbook.temperature);
}

/** The checkingPrompt guard over a drafted reply. */
export function guardRequest(playbook: Playbook, phaseIndex: number, history: HistoryMessage[], draft: string, knowledge?: KnowledgePassage[]) {
  const facts = knowledge
    ? `\nAlso reject a reply that states a price, number, date or promise not supported by these facts from the ` +
      `business's knowledge base or by the rules above:${knowledgePromptBlock(knowledge, false) || ' (none were found for this question)'}`
    : '';
  return request('guard', guardAnswer, [
    {
      role: 'system',
      content:
        `You check a sales agent's drafted reply before it is sent to the prospect.\nRules the reply must follow: ` +
        `${playbook.checkingPrompt}${facts}\nAnswer JSON {"pass": boolean, "reason": string}; the reason says which rule is broken.`,
    },
    { role: 'user', content: `Conversation so far:\n${transcriptOf(history)}\n\nDrafted reply:\n${draft}` },
  ], playbook, factsOf(playbook, phaseIndex, history));
}

/** A 1–10 rating when the conversation reaches its end phase. */
export function ratingRequest(playbook: Playbook, history: HistoryMessage[]) {
  const last = Math.max(0, playbook.phases.length - 1);
  return request('rating', ratingAnswer, [
    {
      role: 'system',
      content:
        `The agent: ${playbook.rolePrompt}\nThis sales conversation has reached its end. Rate how well it went for the ` +
        `business from 1 (bad) to 10 (excellent). Answer JSON {"rating": integer, "reason": string}.`,
    },
    { role: 'user', content: transcriptOf(history) },
  ], playbook, factsOf(playbook, last, history));
}

/** A nudge when the prospect went quiet (the phase's followUpPrompt, or a plain check-in). */
export function followUpRequest(playbook: Playbook, phaseIndex: number, history: HistoryMessage[], rejection?: string) {
  const instruction = playbook.phases[phaseIndex]?.followUpPrompt?.trim() || 'Politely check in and invite a reply.';
  const retry = rejection ? `\nYour previous follow-up was rejected for this reason: ${rejection}\nWrite a different one.` : '';
  return request('follow-up', followUpAnswer, [
    {
      role: 'system',
      content:
        `${playbook.rolePrompt}\n\n${phaseHeader(playbook, phaseIndex)}\n\nThe prospect has not replied to your last ` +
        `message. Write a short follow-up message: ${instruction}${retry}\nAnswer JSON {"reply": string}.`,
    },
    ...chatOf(history),
  ], playbook, factsOf(playbook, phaseIndex, history), playbook.temperature);
}

/** Phase positions are the phases sorted by their index (so 0..N-1 even when stored indexes have gaps). */
export function playbookOf(loaded: LoadedConversation, settings: AgentSettings): Playbook {
  return playbookFrom(loaded.type!, loaded.phases, settings);
}

/**
 * The playbook of a type's prompts and phases (a stored type, or a published version's snapshot) with the model
 * settings it runs under: only the fields the prompts read, so a row's other columns never reach the model.
 */
export function playbookFrom(
  prompts: Pick<Playbook, 'rolePrompt' | 'triggerConversationPrompt' | 'checkingPrompt' | 'errorPrompt'>,
  phases: Playbook['phases'],
  settings: Pick<Playbook, 'model' | 'temperature'>,
): Playbook {
  return {
    rolePrompt: prompts.rolePrompt,
    triggerConversationPrompt: prompts.triggerConversationPrompt,
    checkingPrompt: prompts.checkingPrompt,
    errorPrompt: prompts.errorPrompt,
    phases: phases.map((p) => ({ prompt: p.prompt, transitionPrompt: p.transitionPrompt, followUpPrompt: p.followUpPrompt })),
    model: settings.model,
    temperature: settings.temperature,
  };
}
