import { DEMO_AGENT_PREFIX } from '@sales-agent/shared/agent';
import { truncate } from '@sales-agent/shared/truncate';
import type { LlmProvider, LlmRequest, LlmResult, PlaybookFacts } from './provider.ts';

/**
 * The offline demo agent, used when OPENAI_API_KEY is unset so the product works out of the box. It is
 * deterministic: it engages every conversation, every prospect message moves the conversation one phase on,
 * guards always pass, and replies are built from the phase prompt. Its messages start with
 * DEMO_AGENT_PREFIX so screens can label them "Demo agent (offline)".
 */
export function createDemoProvider(): LlmProvider {
  return {
    kind: 'offline-demo',
    async complete<T>(request: LlmRequest<T>): Promise<LlmResult<T>> {
      const value = request.answer.parse.parse(answerFor(request.purpose, request.facts));
      return { value, model: 'offline-demo', usage: null };
    },
  };
}

function answerFor(purpose: LlmRequest<unknown>['purpose'], facts: PlaybookFacts): unknown {
  switch (purpose) {
    case 'trigger':
      return { engage: true, reason: 'The offline demo agent engages every conversation.' };
    case 'transition':
      return { advance: true, reason: 'The offline demo agent moves on one phase per prospect message.' };
    case 'guard':
      return { pass: true, reason: '' };
    case 'rating':
      return { rating: Math.min(10, Math.max(1, 4 + facts.prospectMessageCount)), reason: 'Demo rating: more replies, higher rating.' };
    case 'draft': {
      const heard = facts.lastProspectMessage ? ` You wrote: "${truncate(facts.lastProspectMessage, 80)}".` : '';
      const text = `Phase ${facts.phaseIndex + 1} of ${facts.phaseCount}: ${firstSentence(facts.phasePrompt)}${heard}`;
      return { reply: DEMO_AGENT_PREFIX + text, needsHuman: false, reason: '' };
    }
    case 'follow-up':
      return { reply: `${DEMO_AGENT_PREFIX}Just checking in. ${firstSentence(facts.followUpPrompt ?? facts.phasePrompt)}` };
  }
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return truncate(end === -1 ? flat : flat.slice(0, end + 1), 160);
}
