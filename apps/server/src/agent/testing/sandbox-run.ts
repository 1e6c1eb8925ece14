import { PHASE } from '@sales-agent/shared/enums';
import type { Criterion, Scenario } from '@sales-agent/shared/schemas/agent-tests';
import { readConversationTypeConfig, AGENT_CONFIG_DEFAULTS } from '@sales-agent/shared/schemas/conversation-type-config';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { PlaybookSnapshot } from '../../conversations/playbook-versions.ts';
import { costOf } from '../llm/prices.ts';
import { LlmError, type JsonAnswer, type LlmProvider, type LlmRequest } from '../llm/provider.ts';
import { getLlmProvider } from '../llm/select-provider.ts';
import {
  draftRequest,
  guardRequest,
  type HistoryMessage,
  type Playbook,
  playbookFrom,
  ratingRequest,
  transcriptOf,
  transitionRequest,
  triggerRequest,
} from '../prompts.ts';
import { BOOKING_TOOLS, describeSlot, validTimeZone } from '../tools/booking-tools.ts';
import { createDemoCalendar } from '../tools/demo-calendar.ts';
import { toolNoteMessage, type ToolNote } from '../tools/tool-notes.ts';
import { MAX_TOOL_CALLS_PER_TURN } from '../tools/tool-step.ts';
import type { ToolChatMessage } from '../tools/tool-types.ts';
import { evaluateCriteria, type CriterionVerdict } from './criteria.ts';
import type { SandboxState, TranscriptLine } from './run-state.ts';

export type { SandboxState, TranscriptLine };

/**
 * The sandbox (issue 25, docs/agent-tests.md): a scenario is played in memory against a playbook snapshot
 * with the agent's own prompts, decisions and guard. Nothing is stored in the team's data and nothing is
 * queued: no conversation, message, outbox row, delivery job, CRM write-back, booking or follow-up exists, so
 * no channel, CRM or calendar is reached; tools are answered by stand-ins (the scenario's recorded answers,
 * else the offline demo calendar). LLM calls go to the provider directly, so the usage is booked nowhere
 * but on the run's report.
 */

export interface RunResult {
  scenario: string;
  passed: boolean;
  criteria: CriterionVerdict[];
  transcript: TranscriptLine[];
  turns: number;
  outcome: SandboxState['status'];
  finalPhase: number;
  toolCalls: SandboxState['toolCalls'];
  tokens: { prompt: number; completion: number };
  costUsd: number;
  durationMs: number;
  error: string | null;
}

/** A persona scenario with no LLM configured, or a broken setup: the run cannot be played at all. */
export class SandboxSetupError extends Error {}

export const DEFAULT_PERSONA_TURNS = 8;

const prospectAnswer: JsonAnswer<{ message: string; done: boolean }> = {
  name: 'simulated_prospect',
  schema: {
    type: 'object',
    properties: { message: { type: 'string' }, done: { type: 'boolean' } },
    required: ['message', 'done'],
    additionalProperties: false,
  },
  parse: z.object({ message: z.string(), done: z.boolean() }),
};

/** The sandbox's calls: straight to the provider, usage added to the run (never to a conversation). */
async function ask<T>(provider: LlmProvider, state: SandboxState, request: LlmRequest<T>): Promise<T> {
  const result = await provider.complete(request);
  if (result.usage) {
    state.promptTokens += result.usage.promptTokens;
    state.completionTokens += result.usage.completionTokens;
    state.costUsd += costOf(result.model, result.usage.promptTokens, result.usage.completionTokens);
  }
  return result.value;
}

function playbookOfSnapshot(ctx: AppContext, snapshot: PlaybookSnapshot): Playbook {
  const config = readConversationTypeConfig(snapshot.config);
  return playbookFrom(snapshot, snapshot.phases, {
    model: config.model ?? ctx.config.LLM_MODEL,
    temperature: config.temperature ?? AGENT_CONFIG_DEFAULTS.temperature,
  });
}

const historyOf = (state: SandboxState): HistoryMessage[] => state.transcript.map((l) => ({ role: l.role, message: l.text }));

/** Plays one scenario once; never throws for what the agent does (a failed LLM is the run's outcome). */
export async function runScenario(ctx: AppContext, snapshot: PlaybookSnapshot, scenario: Scenario): Promise<RunResult> {
  const started = performance.now();
  const provider = getLlmProvider(ctx);
  if (scenario.messages === undefined && provider.kind === 'offline-demo') {
    throw new SandboxSetupError(`Scenario "${scenario.name}" has a persona, which needs an LLM (OPENAI_API_KEY); give it scripted messages to run offline.`);
  }
  const playbook = playbookOfSnapshot(ctx, snapshot);
  const state: SandboxState = {
    phase: 0,
    status: snapshot.phases.length === 0 ? 'ended' : 'working',
    maxPhase: 0,
    transcript: [],
    toolCalls: [],
    booked: false,
    fields: {},
    turns: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    reason: null,
  };
  let error: string | null = null;
  const initial = snapshot.initialMessage?.trim();
  if (initial) state.transcript.push({ role: 'AGENT', text: initial, phase: 0 });
  const maxTurns = scenario.maxTurns ?? (scenario.messages ? scenario.messages.length + 1 : DEFAULT_PERSONA_TURNS);
  try {
    for (let turn = 0; turn < maxTurns && state.status === 'working'; turn += 1) {
      const said = turn === 0 ? scenario.opening : await nextProspectMessage(provider, state, playbook, scenario, turn);
      if (said === null) break;
      state.transcript.push({ role: 'PROSPECT', text: said, phase: state.phase });
      state.turns += 1;
      await agentTurn(provider, state, playbook, snapshot, scenario);
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const criteria = error ? [] : await evaluateCriteria(provider, playbook, state, scenario.criteria, snapshot.phases.length, (request) => ask(provider, state, request));
  return {
    scenario: scenario.name,
    passed: error === null && criteria.every((c) => c.passed),
    criteria,
    transcript: state.transcript,
    turns: state.turns,
    outcome: state.status,
    finalPhase: state.phase,
    toolCalls: state.toolCalls,
    tokens: { prompt: state.promptTokens, completion: state.completionTokens },
    costUsd: state.costUsd,
    durationMs: Math.round(performance.now() - started),
    error,
  };
}

/** The scripted prospect's next line, or the LLM playing the persona (null: they are done). */
async function nextProspectMessage(provider: LlmProvider, state: SandboxState, playbook: Playbook, scenario: Scenario, turn: number): Promise<string | null> {
  if (scenario.messages) return scenario.messages[turn - 1] ?? null;
  const request: LlmRequest<{ message: string; done: boolean }> = {
    purpose: 'test-prospect',
    answer: prospectAnswer,
    model: playbook.model,
    temperature: 0.7,
    facts: { phaseIndex: state.phase, phaseCount: playbook.phases.length, phasePrompt: '', followUpPrompt: null, prospectMessageCount: turn, lastProspectMessage: null, toolNotes: [] },
    messages: [
      {
        role: 'system',
        content:
          `You play a prospect in a rehearsal with a company's sales agent. Stay in character; write only what the ` +
          `prospect writes next, short as a chat message.\nWho you are and how you behave: ${scenario.persona}\n` +
          `Answer JSON {"message": string, "done": boolean}; done is true when you would stop writing now.`,
      },
      { role: 'user', content: `The conversation so far:\n${transcriptOf(historyOf(state).filter((m) => m.role !== 'SYSTEM'))}` },
    ],
  };
  const next = await ask(provider, state, request);
  return next.done || !next.message.trim() ? null : next.message.trim();
}

/** One agent turn, as agent/turn.ts decides it: trigger → transition → tools → guarded draft → reply. */
async function agentTurn(provider: LlmProvider, state: SandboxState, playbook: Playbook, snapshot: PlaybookSnapshot, scenario: Scenario): Promise<void> {
  const phaseCount = playbook.phases.length;
  try {
    let history = historyOf(state);
    const firstContact = !state.transcript.some((l) => l.role === 'AGENT');
    if (firstContact && playbook.triggerConversationPrompt?.trim()) {
      const decision = await ask(provider, state, triggerRequest(playbook, history));
      if (!decision.engage) {
        state.status = 'ignored';
        state.phase = PHASE.IGNORED;
        return;
      }
    }
    const transition = await ask(provider, state, transitionRequest(playbook, state.phase, history));
    if (transition.advance) {
      const next = state.phase + 1;
      if (next === phaseCount) {
        await ask(provider, state, ratingRequest(playbook, history)).catch(() => null);
        state.phase = phaseCount;
        state.maxPhase = phaseCount;
        state.status = 'ended';
        return;
      }
      state.phase = next;
      state.maxPhase = Math.max(state.maxPhase, next);
    }
    history = await toolStep(provider, state, playbook, snapshot, scenario, history);
    let rejection: string | undefined;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const draft = await ask(provider, state, draftRequest(playbook, state.phase, history, rejection));
      const reply = draft.reply.trim();
      let pass = true;
      if (reply && playbook.checkingPrompt?.trim()) {
        const verdict = await ask(provider, state, guardRequest(playbook, state.phase, history, reply));
        pass = verdict.pass;
        if (!pass) rejection = verdict.reason || 'The reply breaks the checking rules.';
      }
      if (!pass) continue;
      if (reply) state.transcript.push({ role: 'AGENT', text: reply, phase: state.phase });
      if (draft.needsHuman) handOver(state, `The agent asked for a human: ${draft.reason || 'no reason given'}`);
      return;
    }
    handOver(state, `The drafted reply failed the checking prompt twice: ${rejection}`);
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    const text = playbook.errorPrompt.trim();
    if (text) state.transcript.push({ role: 'AGENT', text, phase: state.phase });
    state.status = 'errored';
    state.reason = err.message;
    state.phase = PHASE.ERRORED;
  }
}

function handOver(state: SandboxState, reason: string): void {
  state.status = 'needs-human';
  state.reason = reason;
  state.transcript.push({ role: 'SYSTEM', text: reason, phase: state.phase });
  state.phase = PHASE.NEEDS_HUMAN;
}

/** The tool step against stand-ins: the type's booking tools (as agent/tools/tool-step.ts offers them). */
async function toolStep(
  provider: LlmProvider,
  state: SandboxState,
  playbook: Playbook,
  snapshot: PlaybookSnapshot,
  scenario: Scenario,
  history: HistoryMessage[],
): Promise<HistoryMessage[]> {
  const config = readConversationTypeConfig(snapshot.config);
  if (!config.booking && provider.kind !== 'offline-demo' && !scenario.tools) return history;
  const messages: ToolChatMessage[] = [
    { role: 'system', content: `${playbook.rolePrompt}\n\nUse the tools when the prospect wants to meet or asks what they can do; otherwise call none.` },
    ...history.map((m): ToolChatMessage => (m.role === 'AGENT' ? { role: 'assistant', content: m.message } : { role: m.role === 'PROSPECT' ? 'user' : 'system', content: m.message })),
  ];
  const lastProspectMessage = history.filter((m) => m.role === 'PROSPECT').at(-1)?.message ?? null;
  const notes: ToolNote[] = [];
  for (let calls = 0; calls < MAX_TOOL_CALLS_PER_TURN; ) {
    const step = await provider.act({ model: playbook.model, messages, tools: BOOKING_TOOLS, facts: { lastProspectMessage, results: notes } });
    if (step.usage) {
      state.promptTokens += step.usage.promptTokens;
      state.completionTokens += step.usage.completionTokens;
      state.costUsd += costOf(step.model, step.usage.promptTokens, step.usage.completionTokens);
    }
    if (step.toolCalls.length === 0) break;
    messages.push({ role: 'assistant', content: null, toolCalls: step.toolCalls });
    for (const call of step.toolCalls) {
      calls += 1;
      const note = await standIn(state, scenario, call.name, call.arguments);
      notes.push(note);
      messages.push({ role: 'tool', toolCallId: call.id, content: note.ok ? JSON.stringify(note.value) : `Error: ${String(note.value)}` });
    }
  }
  return [...history, ...notes.map(toolNoteMessage)];
}

/** What a tool answers in the sandbox: the scenario's recorded answer, else the demo calendar. */
async function standIn(state: SandboxState, scenario: Scenario, name: string, rawArgs: string): Promise<ToolNote> {
  let args: Record<string, unknown> = {};
  let note: ToolNote;
  try {
    const parsed: unknown = JSON.parse(rawArgs || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
    args = parsed as Record<string, unknown>;
    for (const [key, value] of Object.entries(args)) if (typeof value === 'string' && value.trim()) state.fields[key] = value.trim();
    if (scenario.tools && name in scenario.tools) note = { name, ok: true, value: scenario.tools[name] };
    else if (name === 'check_availability') {
      const timeZone = validTimeZone(args.timeZone);
      const from = new Date();
      const slots = await createDemoCalendar().freeSlots(from, new Date(from.getTime() + 14 * 86_400_000), timeZone);
      note = { name, ok: true, value: { timeZone, slots: slots.map((s) => ({ ...s, label: describeSlot(s.start, timeZone) })) } };
    } else if (name === 'book_meeting') {
      const timeZone = validTimeZone(args.timeZone);
      const start = typeof args.start === 'string' ? new Date(args.start) : null;
      if (!start || Number.isNaN(start.getTime())) throw new Error('start must be a slot start from check_availability (ISO 8601).');
      note = { name, ok: true, value: { booked: true, start: start.toISOString(), timeZone, confirmation: describeSlot(start.toISOString(), timeZone), externalId: 'sandbox' } };
    } else throw new Error(`there is no tool named ${name}`);
  } catch (err) {
    note = { name, ok: false, value: err instanceof Error ? err.message : String(err) };
  }
  if (note.ok && (name === 'book_meeting' || (note.value as { booked?: unknown } | null)?.booked === true)) state.booked = true;
  state.toolCalls.push({ name, arguments: args, ok: note.ok, result: note.value });
  return note;
}

export type { Criterion };
