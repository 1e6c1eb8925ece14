import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../../context.ts';
import type { LoadedConversation } from '../../conversations/conversation-store.ts';
import { recordLlmCall } from '../../lib/metrics.ts';
import type { DeferredUsage } from '../ask-llm.ts';
import { getLlmProvider } from '../llm/select-provider.ts';
import type { HistoryMessage } from '../prompts.ts';
import { isConfirmation, takePendingToolCall } from './pending-tool-call.ts';
import { toolNoteMessage, type ToolNote } from './tool-notes.ts';
import type { ToolChatMessage } from './tool-types.ts';
import { conversationToolbox, MAX_TOOL_CALLS_PER_TURN } from './toolbox.ts';

export { MAX_TOOL_CALLS_PER_TURN, toolLimits } from './toolbox.ts';

/**
 * The tool step of a turn, before the reply is drafted: the model is shown the type's tools and the
 * conversation; each call it asks for runs through the conversation's toolbox (timeout, per-turn cap, stored,
 * booked in metrics), and its result goes back to the model until it asks for none. A call held for the
 * prospect's yes (`"confirm": true`) runs first when this turn's message is that yes, and is dropped when it is
 * anything else. Returns the history with the results as tool notes, so the draft confirms a booking, asks for
 * the yes, or says what failed (never silence).
 */
export async function runToolStep(
  ctx: AppContext,
  loaded: LoadedConversation,
  systemPrompt: string,
  history: HistoryMessage[],
  usage: DeferredUsage[],
): Promise<HistoryMessage[]> {
  const provider = getLlmProvider(ctx);
  const toolbox = conversationToolbox(ctx, {
    conversationId: loaded.conversation.id,
    typeConfig: loaded.type?.config,
    crmContactId: loaded.conversation.crmContactId ?? null,
    demoAgent: provider.kind === 'offline-demo',
    transcript: async () => history,
  });
  const lastProspectMessage = history.filter((m) => m.role === 'PROSPECT').at(-1)?.message ?? null;
  const notes: ToolNote[] = [];
  const confirmed: HistoryMessage[] = [];
  // The prospect answers the agent's question about a held call: a yes runs exactly that call, anything else drops it.
  const pending = loaded.conversation.pendingToolCall ? await takePendingToolCall(ctx, loaded.conversation.id) : null;
  if (pending && isConfirmation(lastProspectMessage)) {
    notes.push(await toolbox.execute(pending.name, pending.arguments));
  } else if (pending) {
    confirmed.push({ role: 'SYSTEM', message: `[tool] The prospect did not confirm "${pending.action}", so it was not done; ask again only if they still want it.` });
  }
  if (toolbox.definitions.length === 0) return [...history, ...confirmed, ...notes.map(toolNoteMessage)];
  const model = readConversationTypeConfig(loaded.type?.config).model ?? ctx.config.LLM_MODEL;
  const messages: ToolChatMessage[] = [
    { role: 'system', content: `${systemPrompt}\n\nUse the tools when the prospect wants to meet, asks what they can do, or tells you something a tool records; otherwise call none.` },
    ...history.map((m): ToolChatMessage => (m.role === 'AGENT' ? { role: 'assistant', content: m.message } : { role: m.role === 'PROSPECT' ? 'user' : 'system', content: m.message })),
    ...confirmed.map((m): ToolChatMessage => ({ role: 'system', content: m.message })),
  ];
  if (notes.length > 0) {
    // The confirmed call is shown to the model as its own call with its result, so it does not ask for it again.
    const id = `confirmed-${notes[0]!.name}`;
    messages.push({ role: 'assistant', content: null, toolCalls: [{ id, name: notes[0]!.name, arguments: JSON.stringify(pending!.arguments) }] });
    messages.push({ role: 'tool', toolCallId: id, content: notes[0]!.ok ? JSON.stringify(notes[0]!.value) : `Error: ${String(notes[0]!.value)}` });
  }
  let calls = notes.length;
  while (calls < MAX_TOOL_CALLS_PER_TURN) {
    const started = performance.now();
    const step = await provider.act({ model, messages, tools: toolbox.definitions, facts: { lastProspectMessage, results: notes } });
    recordLlmCall({ purpose: 'tools', model: step.model, seconds: (performance.now() - started) / 1000, outcome: 'ok', ...step.usage });
    if (step.usage) usage.push({ purpose: 'tools', model: step.model, ...step.usage });
    if (step.toolCalls.length === 0) break;
    messages.push({ role: 'assistant', content: null, toolCalls: step.toolCalls });
    for (const call of step.toolCalls) {
      const note: ToolNote = calls < MAX_TOOL_CALLS_PER_TURN
        ? await toolbox.call(call.name, call.arguments)
        : { name: call.name, ok: false, value: `skipped: at most ${MAX_TOOL_CALLS_PER_TURN} tool calls per turn` };
      calls += 1;
      notes.push(note);
      messages.push({ role: 'tool', toolCallId: call.id, content: note.ok ? JSON.stringify(note.value) : `Error: ${String(note.value)}` });
    }
  }
  return [...history, ...confirmed, ...notes.map(toolNoteMessage)];
}
