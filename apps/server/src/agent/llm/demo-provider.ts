import { DEMO_AGENT_PREFIX } from '@sales-agent/shared/agent';
import { truncate } from '@sales-agent/shared/truncate';
import { demoToolStep } from '../tools/demo-acts.ts';
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
    async act(request) {
      return demoToolStep(request);
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
    case 'analysis':
      return demoAnalysis(facts);
    case 'draft': {
      if (facts.closing) {
        const heard = facts.lastProspectMessage ? ` About "${truncate(facts.lastProspectMessage, 80)}":` : '';
        return { reply: `${DEMO_AGENT_PREFIX}Thank you!${heard} a colleague will confirm the next step with you by the next business day.`, needsHuman: false, reason: '' };
      }
      const acted = demoReplyAfterTools(facts);
      if (acted) return { reply: DEMO_AGENT_PREFIX + acted, needsHuman: false, reason: '' };
      if (facts.knowledge) {
        const known = demoReplyFromKnowledge(facts);
        if (known) return { ...known, reply: DEMO_AGENT_PREFIX + known.reply, needsHuman: false, reason: '' };
      }
      const heard = facts.lastProspectMessage ? ` You wrote: "${truncate(facts.lastProspectMessage, 80)}".` : '';
      const text = `Phase ${facts.phaseIndex + 1} of ${facts.phaseCount}: ${firstSentence(facts.phasePrompt)}${heard}`;
      return { reply: DEMO_AGENT_PREFIX + text, needsHuman: false, reason: '' };
    }
    case 'follow-up':
      return { reply: `${DEMO_AGENT_PREFIX}Just checking in. ${firstSentence(facts.followUpPrompt ?? facts.phasePrompt)}` };
  }
}

/**
 * The demo agent's outcome analysis: "booked" when a meeting is booked, else by how the conversation ended
 * (hand-over → needs human, no prospect message or not reached → no response, last phase → qualified, any
 * other end → not interested), each the first of the type's outcomes that matches, else its last outcome.
 */
function demoAnalysis(facts: PlaybookFacts) {
  const a = facts.analysis!;
  const pick = (...wanted: string[]) => a.outcomes.find((o) => wanted.includes(o.toLowerCase())) ?? a.outcomes.at(-1)!;
  const [outcome, score] = a.booked
    ? [pick('booked'), 90]
    : a.ended === 'needsHuman'
      ? [pick('needs human', 'needs_human'), 50]
      : facts.prospectMessageCount === 0 || a.ended === 'notReached'
        ? [pick('no response', 'no_response'), 10]
        : a.ended === 'ended'
          ? [pick('qualified'), 70]
          : [pick('not interested', 'not_interested'), 30];
  const said = `${facts.prospectMessageCount} prospect message${facts.prospectMessageCount === 1 ? '' : 's'}`;
  const summary = `${DEMO_AGENT_PREFIX}${a.booked ? 'A meeting was booked' : 'No meeting was booked'} after ${said}; the conversation ${
    a.ended === 'ended' ? `reached its last phase (${facts.phaseCount})` : `ended as ${a.ended}`
  }.`;
  return { summary, outcome, score };
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return truncate(end === -1 ? flat : flat.slice(0, end + 1), 160);
}

/** The demo agent's reply when a tool ran this turn: the booking (or its move, its cancellation) confirmed with date, time and time zone. */
function demoReplyAfterTools(facts: PlaybookFacts): string | null {
  const failed = facts.toolNotes.find((n) => !n.ok);
  if (failed) return `I could not do that just now (${truncate(String(failed.value), 120)}). Shall I try again, or would you like a colleague to help?`;
  const held = facts.toolNotes.map((n) => n.value as { awaitingConfirmation?: boolean; action?: string } | null).find((v) => v?.awaitingConfirmation);
  if (held?.action) return `Shall I ${held.action}? Reply "yes" to confirm.`;
  const booked = facts.toolNotes.find((n) => n.name === 'book_meeting')?.value as { confirmation?: string } | undefined;
  if (booked?.confirmation) return `You're booked for ${booked.confirmation}. See you then!`;
  const moved = facts.toolNotes.find((n) => n.name === 'reschedule_meeting')?.value as { confirmation?: string } | undefined;
  if (moved?.confirmation) return `Done: your meeting is moved to ${moved.confirmation}.`;
  const cancelled = facts.toolNotes.find((n) => n.name === 'cancel_meeting')?.value as { meeting?: string } | undefined;
  if (cancelled?.meeting) return `Your meeting on ${cancelled.meeting} is cancelled. Write any time to book a new one.`;
  const checked = facts.toolNotes.find((n) => n.name === 'check_availability')?.value as { slots?: { label: string }[] } | undefined;
  if (checked) return checked.slots?.length ? `Free times: ${checked.slots.slice(0, 3).map((s) => s.label).join('; ')}.` : 'There are no free times in the next two weeks.';
  return null;
}

/** Words that start a question (the demo agent's test for "the prospect asked something"). */
const QUESTION_START = /^(what|which|who|when|where|why|how|is|are|do|does|did|can|could|will|would|should|may|have|has)\b/i;

/**
 * Issue 21 offline: the best passage's answer when the knowledge had one, "I'll find out" (and the question
 * for the unanswered list) when the prospect asked something it had not; null for anything else.
 */
function demoReplyFromKnowledge(facts: PlaybookFacts): { reply: string; unknownQuestion: string } | null {
  const best = facts.knowledge?.[0];
  if (best) {
    // An FAQ passage reads "Q: … A: …": the answer part.
    const answer = best.text.match(/^Q: [\s\S]*?\sA: ([\s\S]+)$/)?.[1] ?? best.text;
    return { reply: `From our ${best.title ? `"${best.title}"` : 'notes'}: ${cutAtWord(answer.replace(/\s+/g, ' ').trim(), 400)}`, unknownQuestion: '' };
  }
  const asked = facts.lastProspectMessage?.trim() ?? '';
  if (!asked || !(asked.includes('?') || QUESTION_START.test(asked))) return null;
  return { reply: "I don't have that in my notes, so I won't guess: I'll find out and get back to you.", unknownQuestion: asked };
}

/** At most `max` characters, cut at a word boundary (a cut number would be a wrong number). */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
}
