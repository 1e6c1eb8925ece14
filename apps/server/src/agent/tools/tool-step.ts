import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { truncate } from '@sales-agent/shared/truncate';
import type { AppContext } from '../../context.ts';
import type { LoadedConversation } from '../../conversations/conversation-store.ts';
import { agentToolCalls } from '../../db/schema/index.ts';
import { recordLlmCall, recordToolCall } from '../../lib/metrics.ts';
import type { DeferredUsage } from '../ask-llm.ts';
import { getLlmProvider } from '../llm/select-provider.ts';
import type { HistoryMessage } from '../prompts.ts';
import { BOOKING_TOOLS, type BookingToolContext, bookMeeting, calendarOf, cancelMeeting, checkAvailability, rescheduleMeeting } from './booking-tools.ts';
import { CUSTOM_TOOL_DEFAULT_TIMEOUT_MS, callCustomTool, customToolDefinition, type ToolCallContext } from './http-tools.ts';
import { readLeadFields } from '../../conversations/lead-fields.ts';
import { leadToolDefinition, updateLead } from './lead-tools.ts';
import { toolNoteMessage, type ToolNote } from './tool-notes.ts';
import type { ToolChatMessage, ToolDefinition } from './tool-types.ts';

/** Tool calls one turn may make at most (a model looping on tools would otherwise never answer). */
export const MAX_TOOL_CALLS_PER_TURN = 4;
/** How long one tool may take before it counts as failed (an object so a test can shorten it). */
export const toolLimits = { timeoutMs: 10_000 };
/** The most of a tool's answer kept and given back to the model. */
const RESULT_MAX_CHARS = 4000;

type ToolRun = (args: Record<string, unknown>) => Promise<unknown>;

/** The tools of a conversation: only what its type's config declares (a prospect's words never add one). */
function toolsOf(ctx: AppContext, loaded: LoadedConversation, history: HistoryMessage[]): { definitions: ToolDefinition[]; run: Map<string, ToolRun>; timeouts: Map<string, number> } {
  const config = readConversationTypeConfig(loaded.type?.config);
  const calendar = calendarOf(ctx, config, getLlmProvider(ctx).kind === 'offline-demo', loaded.conversation.crmContactId ?? null);
  const run = new Map<string, ToolRun>();
  const definitions: ToolDefinition[] = [];
  const conversationId = loaded.conversation.id;
  if (calendar) {
    const tc: BookingToolContext = { ctx, conversationId, calendar, prospectName: null };
    run.set('check_availability', (args) => checkAvailability(tc, args));
    run.set('book_meeting', (args) => bookMeeting(tc, args));
    run.set('reschedule_meeting', (args) => rescheduleMeeting(tc, args));
    run.set('cancel_meeting', (args) => cancelMeeting(tc, args));
    definitions.push(...BOOKING_TOOLS);
  }
  const leadFields = config.leadFields ?? [];
  if (leadFields.length > 0) {
    run.set('update_lead', (args) => updateLead(ctx, conversationId, leadFields, args));
    definitions.push(leadToolDefinition(leadFields));
  }
  // The team's own HTTP tools: only those the type declares, called with the URL and headers of its config.
  const timeouts = new Map<string, number>();
  for (const tool of config.tools ?? []) {
    run.set(tool.name, async (args) => (await callCustomTool(ctx, tool, args, () => toolCallContext(ctx, conversationId, history))).value);
    timeouts.set(tool.name, (tool.timeoutMs ?? CUSTOM_TOOL_DEFAULT_TIMEOUT_MS) + 500);
    definitions.push(customToolDefinition(tool));
  }
  return { definitions, run, timeouts };
}

/** The transcript a tool with `includeTranscript` gets: the prospect's and the agent's latest messages, never notes. */
const TOOL_TRANSCRIPT_MESSAGES = 20;

async function toolCallContext(ctx: AppContext, conversationId: number, history: HistoryMessage[]): Promise<ToolCallContext> {
  return {
    leadFields: await readLeadFields(ctx.db, conversationId),
    transcript: history
      .filter((m) => m.role !== 'SYSTEM')
      .slice(-TOOL_TRANSCRIPT_MESSAGES)
      .map((m) => ({ role: m.role === 'PROSPECT' ? ('prospect' as const) : ('agent' as const), text: m.message })),
  };
}

/**
 * The tool step of a turn, before the reply is drafted: the model is shown the type's tools and the
 * conversation; each call it asks for runs (timeout, per-turn cap), is stored on the conversation and booked
 * in metrics, and its result goes back to the model until it asks for none. Returns the history with the
 * results as tool notes, so the draft confirms a booking or says what failed (never silence).
 */
export async function runToolStep(
  ctx: AppContext,
  loaded: LoadedConversation,
  systemPrompt: string,
  history: HistoryMessage[],
  usage: DeferredUsage[],
): Promise<HistoryMessage[]> {
  const { definitions, run, timeouts } = toolsOf(ctx, loaded, history);
  if (definitions.length === 0) return history;
  const provider = getLlmProvider(ctx);
  const model = readConversationTypeConfig(loaded.type?.config).model ?? ctx.config.LLM_MODEL;
  const messages: ToolChatMessage[] = [
    { role: 'system', content: `${systemPrompt}\n\nUse the tools when the prospect wants to meet, asks what they can do, or tells you something a tool records; otherwise call none.` },
    ...history.map((m): ToolChatMessage => (m.role === 'AGENT' ? { role: 'assistant', content: m.message } : { role: m.role === 'PROSPECT' ? 'user' : 'system', content: m.message })),
  ];
  const lastProspectMessage = history.filter((m) => m.role === 'PROSPECT').at(-1)?.message ?? null;
  const notes: ToolNote[] = [];
  let calls = 0;
  while (calls < MAX_TOOL_CALLS_PER_TURN) {
    const started = performance.now();
    const step = await provider.act({ model, messages, tools: definitions, facts: { lastProspectMessage, results: notes } });
    recordLlmCall({ purpose: 'tools', model: step.model, seconds: (performance.now() - started) / 1000, outcome: 'ok', ...step.usage });
    if (step.usage) usage.push({ purpose: 'tools', model: step.model, ...step.usage });
    if (step.toolCalls.length === 0) break;
    messages.push({ role: 'assistant', content: null, toolCalls: step.toolCalls });
    for (const call of step.toolCalls) {
      const note = calls < MAX_TOOL_CALLS_PER_TURN
        ? await runOne(ctx, loaded.conversation.id, call.name, call.arguments, run.get(call.name), timeouts.get(call.name))
        : { name: call.name, ok: false, value: `skipped: at most ${MAX_TOOL_CALLS_PER_TURN} tool calls per turn` };
      calls += 1;
      notes.push(note);
      messages.push({ role: 'tool', toolCallId: call.id, content: note.ok ? JSON.stringify(note.value) : `Error: ${String(note.value)}` });
    }
  }
  return [...history, ...notes.map(toolNoteMessage)];
}

async function runOne(ctx: AppContext, conversationId: number, name: string, rawArgs: string, run: ToolRun | undefined, timeoutMs?: number): Promise<ToolNote> {
  const started = performance.now();
  let args: Record<string, unknown> = {};
  let note: ToolNote;
  let outcome: 'ok' | 'error' | 'timeout' = 'error';
  try {
    const parsed: unknown = JSON.parse(rawArgs || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
    args = parsed as Record<string, unknown>;
    if (!run) throw new Error(`there is no tool named ${name}`);
    const value = await withTimeout(run(args), timeoutMs ?? toolLimits.timeoutMs, name);
    note = { name, ok: true, value };
    outcome = 'ok';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ToolTimeout) outcome = 'timeout';
    note = { name, ok: false, value: truncate(message, 300) };
  }
  const durationMs = Math.round(performance.now() - started);
  recordToolCall(name, durationMs / 1000, outcome);
  const result = note.ok ? JSON.stringify(note.value) : String(note.value);
  await ctx.db.insert(agentToolCalls).values({ conversationId, name, arguments: args, result: truncate(result, RESULT_MAX_CHARS), ok: note.ok, durationMs });
  if (!note.ok) ctx.log.warn({ conversationId, tool: name, error: note.value }, 'agent tool call failed');
  return note;
}

class ToolTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolTimeout(`${name} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
