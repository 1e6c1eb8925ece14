import type { RealtimeClientEvent, RealtimeFunctionTool } from 'openai/resources/realtime/realtime';
import type { AppContext } from '../../context.ts';
import { isConfirmation, takePendingToolCall } from '../../agent/tools/pending-tool-call.ts';
import type { ToolNote } from '../../agent/tools/tool-notes.ts';
import { MAX_TOOL_CALLS_PER_TURN, type Toolbox } from '../../agent/tools/toolbox.ts';

/**
 * The conversation type's tools on a realtime call (issue 22): check_availability, book_meeting (and its
 * reschedule/cancel), update_lead and the team's custom HTTP tools, declared in the session and run through
 * the same toolbox as a chat turn (agent/tools/toolbox.ts: authorisation by the type's config only, timeout,
 * stored on the conversation, metrics). Each `function_call` is answered with a `function_call_output`.
 */
const INSTRUCTION =
  'You can act with your tools: call check_availability before offering meeting times and book_meeting once the caller has chosen one, then say the date, time and time zone back. When a tool fails, tell the caller and offer a next step or a colleague.';

/** A session.update with the toolbox's tools (flat realtime function tools) and their rule added. */
export function withAgentTools(event: RealtimeClientEvent, toolbox: Toolbox | null): RealtimeClientEvent {
  if (!toolbox || toolbox.definitions.length === 0 || event.type !== 'session.update' || event.session.type !== 'realtime') return event;
  const session = event.session;
  const tools: RealtimeFunctionTool[] = toolbox.definitions.map((d) => ({ type: 'function', name: d.name, description: d.description, parameters: d.parameters }));
  return { ...event, session: { ...session, instructions: `${session.instructions ?? ''}\n\n${INSTRUCTION}`, tools: [...(session.tools ?? []), ...tools] } };
}

/** What the bridge knows of the caller's side when a tool that needs their yes is called again. */
export interface CallerSide {
  /** Resolves once the caller's speech so far is transcribed (or after a short wait). */
  settled(): Promise<void>;
  /** The caller's latest transcribed line and when it arrived (ms). */
  lastLine(): { text: string; at: number } | null;
}

/**
 * Runs one function_call of a toolbox tool. A tool with `"confirm": true` is held on the first call (the model
 * is told to describe it and ask); when the model calls it again after the caller's transcribed yes, the held
 * call — with the arguments the caller agreed to — runs. The cap counts calls since the caller last spoke.
 */
export async function runAgentTool(ctx: AppContext, conversationId: number, toolbox: Toolbox, name: string, rawArgs: string, callsThisTurn: number, caller: CallerSide): Promise<Record<string, unknown>> {
  if (callsThisTurn >= MAX_TOOL_CALLS_PER_TURN) return { ok: false, error: `Skipped: at most ${MAX_TOOL_CALLS_PER_TURN} tool calls per turn. Answer the caller now.` };
  let note: ToolNote | null = null;
  if (toolbox.confirmFirst(name)) {
    await caller.settled();
    const pending = await takePendingToolCall(ctx, conversationId);
    const line = caller.lastLine();
    if (pending && pending.name === name && line && line.at > Date.parse(pending.at) && isConfirmation(line.text)) note = await toolbox.execute(pending.name, pending.arguments);
  }
  note ??= await toolbox.call(name, rawArgs);
  return outputOf(note);
}

function outputOf(note: ToolNote): Record<string, unknown> {
  if (!note.ok) return { ok: false, error: `${String(note.value)}. Tell the caller it did not work and offer a next step or a colleague.` };
  const value = note.value as { awaitingConfirmation?: boolean } | null;
  if (value?.awaitingConfirmation) return { ok: true, ...value, instruction: `Not done yet. Describe this to the caller and ask for their yes; when they say yes, call ${note.name} again with the same arguments.` };
  return { ok: true, result: note.value };
}
