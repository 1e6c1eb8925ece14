import type { RealtimeClientEvent, RealtimeFunctionTool } from 'openai/resources/realtime/realtime';
import type { AppContext } from '../../context.ts';
import { retrieveRelevant } from '../../knowledge/turn-knowledge.ts';

/**
 * The realtime voice agent's knowledge base (issue 21): a `search_knowledge` function tool in the session
 * when the conversation's type has collections. The model calls it with the caller's question; the bridge
 * answers the `function_call` with a `function_call_output` carrying the passages a text turn would get
 * (knowledge/turn-knowledge.ts `retrieveRelevant`: lexical or hybrid, at most 4, unrelated ones dropped).
 */
export const KNOWLEDGE_TOOL = 'search_knowledge';

const INSTRUCTION =
  "Before you state a price, number, date, policy or promise, call search_knowledge with the caller's question and answer only from the passages it returns. If they do not answer it, say you will find out; never guess.";

const tool: RealtimeFunctionTool = {
  type: 'function',
  name: KNOWLEDGE_TOOL,
  description: "Search the business's knowledge base (documents, website, FAQ) for facts that answer the caller's question.",
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: "The caller's question, in a few words." } },
    required: ['query'],
    additionalProperties: false,
  },
};

/** A session.update with the tool and its rule added, when the type has knowledge collections. */
export function withKnowledgeTool(event: RealtimeClientEvent, collectionIds: number[]): RealtimeClientEvent {
  if (event.type !== 'session.update' || collectionIds.length === 0 || event.session.type !== 'realtime') return event;
  const session = event.session;
  return {
    ...event,
    session: { ...session, instructions: `${session.instructions ?? ''}\n\n${INSTRUCTION}`, tools: [...(session.tools ?? []), tool] },
  };
}

/** The function_call_output for one search_knowledge call: the passages with their sources, or why none. */
export async function runKnowledgeTool(ctx: AppContext, collectionIds: number[], argumentsJson: string): Promise<Record<string, unknown>> {
  let query = '';
  try {
    const parsed = JSON.parse(argumentsJson) as { query?: unknown };
    if (typeof parsed.query === 'string') query = parsed.query.trim();
  } catch {
    // handled below: no query
  }
  if (!query) return { ok: false, error: 'Give the question to search for in "query".' };
  try {
    const passages = await retrieveRelevant(ctx, collectionIds, query);
    if (passages.length === 0) return { ok: true, passages: [], note: 'Nothing in the knowledge base answers this: say you will find out.' };
    return { ok: true, passages: passages.map((p) => ({ text: p.text, source: [p.title, p.url].filter(Boolean).join(' — ') || undefined })) };
  } catch (err) {
    ctx.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'realtime knowledge search failed');
    return { ok: false, error: 'The knowledge base could not be searched now: say you will find out.' };
  }
}
