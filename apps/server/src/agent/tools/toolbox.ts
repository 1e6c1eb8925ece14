import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { truncate } from '@sales-agent/shared/truncate';
import type { AppContext } from '../../context.ts';
import type { HistoryMessage } from '../../conversations/conversation-store.ts';
import { readLeadFields } from '../../conversations/lead-fields.ts';
import { and, desc, eq, ne } from 'drizzle-orm';
import { agentToolCalls, messages } from '../../db/schema/index.ts';
import { recordToolCall } from '../../lib/metrics.ts';
import { BOOKING_TOOLS, type BookingToolContext, bookMeeting, calendarOf, cancelMeeting, checkAvailability, describeSlot, rescheduleMeeting, validTimeZone } from './booking-tools.ts';
import { CUSTOM_TOOL_DEFAULT_TIMEOUT_MS, callCustomTool, customToolDefinition, type ToolCallContext } from './http-tools.ts';
import { leadToolDefinition, updateLead } from './lead-tools.ts';
import { holdToolCall } from './pending-tool-call.ts';
import type { ToolNote } from './tool-notes.ts';
import type { ToolDefinition } from './tool-types.ts';

/** Tool calls one turn may make at most (a model looping on tools would otherwise never answer). */
export const MAX_TOOL_CALLS_PER_TURN = 4;
/** How long one tool may take before it counts as failed (an object so a test can shorten it). */
export const toolLimits = { timeoutMs: 10_000 };
/** The most of a tool's answer kept on the conversation. */
const RESULT_MAX_CHARS = 4000;
/** The transcript a tool with `includeTranscript` gets: the prospect's and the agent's latest messages, never notes. */
const TOOL_TRANSCRIPT_MESSAGES = 20;

type ToolRun = (args: Record<string, unknown>) => Promise<unknown>;

/** What the toolbox of one conversation is built from (a chat turn's loaded row, or a realtime call's). */
export interface ToolboxSource {
  conversationId: number;
  typeConfig: string | null | undefined;
  crmContactId: string | null;
  /** The offline demo agent is answering (it books into the demo calendar when the type has none). */
  demoAgent: boolean;
  /** The conversation's recent messages, read only when a tool asks for them (`includeTranscript`). */
  transcript: () => Promise<HistoryMessage[]>;
}

/**
 * The one tool mechanism of chat turns and realtime calls (docs/agent.md "Tools"): the tools the type's config
 * declares — nothing a prospect says can add one — each run with its timeout, stored on the conversation
 * (`agent_tool_calls`) and booked in metrics. A tool configured with `"confirm": true` is not run when the
 * model asks: it is held on the conversation until the prospect says yes (pending-tool-call.ts).
 */
export interface Toolbox {
  definitions: ToolDefinition[];
  /** The model asked for `name` with `rawArgs` (its JSON text): refused, held for a yes, or run. */
  call(name: string, rawArgs: string): Promise<ToolNote>;
  /** Runs a call now: a held one the prospect confirmed. */
  execute(name: string, args: Record<string, unknown>): Promise<ToolNote>;
  /** Whether `name` waits for the prospect's yes. */
  confirmFirst(name: string): boolean;
}

export function conversationToolbox(ctx: AppContext, source: ToolboxSource): Toolbox {
  const config = readConversationTypeConfig(source.typeConfig);
  const { conversationId } = source;
  const run = new Map<string, ToolRun>();
  const timeouts = new Map<string, number>();
  const confirmFirst = new Set<string>();
  const definitions: ToolDefinition[] = [];
  const calendar = calendarOf(ctx, config, source.demoAgent, source.crmContactId);
  if (calendar) {
    const tc: BookingToolContext = { ctx, conversationId, calendar, prospectName: null };
    run.set('check_availability', (args) => checkAvailability(tc, args));
    run.set('book_meeting', (args) => bookMeeting(tc, args));
    run.set('reschedule_meeting', (args) => rescheduleMeeting(tc, args));
    run.set('cancel_meeting', (args) => cancelMeeting(tc, args));
    definitions.push(...BOOKING_TOOLS);
    if ((config.booking as { confirm?: unknown } | undefined)?.confirm === true) confirmFirst.add('book_meeting');
  }
  const leadFields = config.leadFields ?? [];
  if (leadFields.length > 0) {
    run.set('update_lead', (args) => updateLead(ctx, conversationId, leadFields, args));
    definitions.push(leadToolDefinition(leadFields));
  }
  // The team's own HTTP tools: only those the type declares, called with the URL and headers of its config.
  for (const tool of config.tools ?? []) {
    run.set(tool.name, async (args) => (await callCustomTool(ctx, tool, args, () => toolCallContext(ctx, conversationId, source.transcript))).value);
    timeouts.set(tool.name, (tool.timeoutMs ?? CUSTOM_TOOL_DEFAULT_TIMEOUT_MS) + 500);
    definitions.push(customToolDefinition(tool));
    if (tool.confirm === true || tool.requiresConfirmation === true) confirmFirst.add(tool.name);
  }
  const describe = (name: string, args: Record<string, unknown>) =>
    name === 'book_meeting' && typeof args.start === 'string' && !Number.isNaN(Date.parse(args.start))
      ? `book the meeting on ${describeSlot(new Date(args.start).toISOString(), validTimeZone(args.timeZone))}`
      : `${name} (${truncate(definitions.find((d) => d.name === name)?.description ?? '', 160)}) with ${JSON.stringify(args)}`;

  const execute = (name: string, args: Record<string, unknown>) => runOne(ctx, conversationId, name, args, run.get(name), timeouts.get(name));
  return {
    definitions: definitions.map((d) => (confirmFirst.has(d.name) ? withConfirmHint(d) : d)),
    execute,
    confirmFirst: (name) => confirmFirst.has(name),
    async call(name, rawArgs) {
      let args: Record<string, unknown>;
      try {
        args = parseArguments(rawArgs);
        if (!run.has(name)) throw new Error(`there is no tool named ${name}`);
      } catch (err) {
        return runOne(ctx, conversationId, name, {}, () => Promise.reject(err));
      }
      if (!confirmFirst.has(name)) return execute(name, args);
      const held = await holdToolCall(ctx, conversationId, { name, arguments: args, action: describe(name, args) });
      const value = {
        done: false,
        awaitingConfirmation: true,
        action: held.action,
        instruction: 'Not done yet. Describe this action to the prospect in your own words and ask them to confirm with a yes; it runs only after their yes.',
      };
      await record(ctx, conversationId, name, args, `awaiting the prospect's confirmation: ${held.action}`, true, 0);
      return { name, ok: true, value };
    },
  };
}

function withConfirmHint(definition: ToolDefinition): ToolDefinition {
  const hint = ' It needs the prospect’s yes: calling it first asks them, and it runs once they confirm.';
  return definition.description.includes(hint) ? definition : { ...definition, description: definition.description + hint };
}

function parseArguments(rawArgs: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(rawArgs || '{}');
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
  return parsed as Record<string, unknown>;
}

async function toolCallContext(ctx: AppContext, conversationId: number, transcript: () => Promise<HistoryMessage[]>): Promise<ToolCallContext> {
  return {
    leadFields: await readLeadFields(ctx.db, conversationId),
    transcript: (await transcript())
      .filter((m) => m.role !== 'SYSTEM')
      .slice(-TOOL_TRANSCRIPT_MESSAGES)
      .map((m) => ({ role: m.role === 'PROSPECT' ? ('prospect' as const) : ('agent' as const), text: m.message })),
  };
}

async function runOne(ctx: AppContext, conversationId: number, name: string, args: Record<string, unknown>, run: ToolRun | undefined, timeoutMs?: number): Promise<ToolNote> {
  const started = performance.now();
  let note: ToolNote;
  let outcome: 'ok' | 'error' | 'timeout' = 'error';
  try {
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
  await record(ctx, conversationId, name, args, note.ok ? JSON.stringify(note.value) : String(note.value), note.ok, durationMs);
  if (!note.ok) ctx.log.warn({ conversationId, tool: name, error: note.value }, 'agent tool call failed');
  return note;
}

async function record(ctx: AppContext, conversationId: number, name: string, args: Record<string, unknown>, result: string, ok: boolean, durationMs: number): Promise<void> {
  await ctx.db.insert(agentToolCalls).values({ conversationId, name, arguments: args, result: truncate(result, RESULT_MAX_CHARS), ok, durationMs });
}

/** The conversation's latest prospect and agent messages, oldest first (a realtime call has no turn history in hand). */
export async function storedTranscript(ctx: AppContext, conversationId: number): Promise<HistoryMessage[]> {
  const rows = await ctx.db
    .select({ role: messages.role, message: messages.message })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), ne(messages.role, 'SYSTEM')))
    .orderBy(desc(messages.id))
    .limit(TOOL_TRANSCRIPT_MESSAGES);
  return rows.reverse();
}

class ToolTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolTimeout(`${name} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
