import type { Criterion } from '@sales-agent/shared/schemas/agent-tests';
import { z } from 'zod';
import type { JsonAnswer, LlmProvider, LlmRequest } from '../llm/provider.ts';
import { transcriptOf, type Playbook } from '../prompts.ts';
import type { SandboxState } from './run-state.ts';

/** One criterion's verdict with why; `judge` verdicts carry the model's reason. */
export interface CriterionVerdict {
  criterion: Criterion;
  passed: boolean;
  reason: string;
}

const judgeAnswer: JsonAnswer<{ pass: boolean; reason: string }> = {
  name: 'criterion_judge',
  schema: {
    type: 'object',
    properties: { pass: { type: 'boolean' }, reason: { type: 'string' } },
    required: ['pass', 'reason'],
    additionalProperties: false,
  },
  parse: z.object({ pass: z.boolean(), reason: z.string() }),
};

/** Checks every criterion of a finished run: server-checked ones from the run's state, `judge` by the model. */
export async function evaluateCriteria(
  provider: LlmProvider,
  playbook: Playbook,
  state: SandboxState,
  criteria: Criterion[],
  phaseCount: number,
  ask: <T>(request: LlmRequest<T>) => Promise<T>,
): Promise<CriterionVerdict[]> {
  const verdicts: CriterionVerdict[] = [];
  for (const criterion of criteria) verdicts.push(await evaluate(provider, playbook, state, criterion, phaseCount, ask));
  return verdicts;
}

const agentLines = (state: SandboxState) => state.transcript.filter((l) => l.role === 'AGENT');

async function evaluate(
  provider: LlmProvider,
  playbook: Playbook,
  state: SandboxState,
  c: Criterion,
  phaseCount: number,
  ask: <T>(request: LlmRequest<T>) => Promise<T>,
): Promise<CriterionVerdict> {
  const verdict = (passed: boolean, reason: string) => ({ criterion: c, passed, reason });
  switch (c.kind) {
    case 'reachesPhase': {
      // In that phase at some point, or beyond it (the end phase N counts as beyond every working phase).
      const reached = state.maxPhase >= c.phase;
      return verdict(reached, reached ? `Reached phase ${state.maxPhase}.` : `Got only to phase ${state.maxPhase} (needed ${c.phase}).`);
    }
    case 'ended':
      return verdict(state.status === 'ended', state.status === 'ended' ? `Ended (phase ${phaseCount}).` : `Did not end: ${describe(state)}.`);
    case 'booked':
      return verdict(state.booked, state.booked ? 'A meeting was booked.' : 'No meeting was booked.');
    case 'handedToHuman': {
      const handed = state.status === 'needs-human';
      return verdict(handed === c.expected, handed ? `Handed to a person: ${state.reason}` : 'Not handed to a person.');
    }
    case 'usedTool': {
      const used = state.toolCalls.some((t) => t.name === c.name);
      return verdict(used, used ? `Called ${c.name}.` : `Never called ${c.name}.`);
    }
    case 'neverSays': {
      const needle = c.text.toLowerCase();
      const line = agentLines(state).find((l) => l.text.toLowerCase().includes(needle));
      return verdict(!line, line ? `The agent said "${c.text}": ${line.text}` : `The agent never said "${c.text}".`);
    }
    case 'maxLength': {
      const line = agentLines(state).find((l) => l.text.length > c.max);
      return verdict(!line, line ? `A message has ${line.text.length} characters (at most ${c.max}).` : `No message over ${c.max} characters.`);
    }
    case 'fieldFilled': {
      const value = state.fields[c.key];
      if (value === undefined) return verdict(false, `${c.key} was never filled.`);
      if (!c.pattern) return verdict(true, `${c.key} = ${value}`);
      let matches: boolean;
      try {
        matches = new RegExp(c.pattern, 'i').test(value);
      } catch {
        return verdict(false, `The pattern ${c.pattern} is not a valid regular expression.`);
      }
      return verdict(matches, `${c.key} = ${value}${matches ? '' : ` does not match ${c.pattern}`}`);
    }
    case 'judge': {
      if (provider.kind === 'offline-demo') return verdict(false, 'No LLM is configured (OPENAI_API_KEY), so no model can judge this criterion.');
      try {
        const answer = await ask(judgeRequest(playbook, state, c.rubric));
        return verdict(answer.pass, answer.reason);
      } catch (err) {
        return verdict(false, `The judge failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

function describe(state: SandboxState): string {
  if (state.status === 'working') return `still in phase ${state.phase} after ${state.turns} prospect messages`;
  return state.reason ? `${state.status} (${state.reason})` : state.status;
}

function judgeRequest(playbook: Playbook, state: SandboxState, rubric: string): LlmRequest<{ pass: boolean; reason: string }> {
  return {
    purpose: 'test-judge',
    answer: judgeAnswer,
    model: playbook.model,
    temperature: 0,
    facts: { phaseIndex: 0, phaseCount: playbook.phases.length, phasePrompt: '', followUpPrompt: null, prospectMessageCount: 0, lastProspectMessage: null, toolNotes: [] },
    messages: [
      {
        role: 'system',
        content:
          `You judge a test conversation between a sales agent and a simulated prospect against one criterion. ` +
          `Answer JSON {"pass": boolean, "reason": string}: pass is true only if the conversation meets the criterion; ` +
          `the reason quotes what decided it.\nCriterion: ${rubric}`,
      },
      { role: 'user', content: transcriptOf(state.transcript.map((l) => ({ role: l.role, message: l.text }))) },
    ],
  };
}
