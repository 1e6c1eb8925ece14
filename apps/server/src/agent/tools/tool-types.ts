/**
 * The one tool mechanism of a turn (docs/agent.md "Tools"): the tools the model may call are declared by the
 * conversation type's config only — a prospect's text can never add a tool or change what it calls.
 */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments (chat completions `tools[].function.parameters`). */
  parameters: Record<string, unknown>;
}

/**
 * A tool whose arguments are an object of exactly these properties, `required` among them. No others
 * (`additionalProperties: false`), so the model cannot invent an argument the tool would silently ignore.
 */
export function toolDefinition(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[] = [],
): ToolDefinition {
  return { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } };
}

/** One call the model asked for (`tool_calls[]` of a chat completion). */
export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model wrote; parsed by the tool runner. */
  arguments: string;
}

/** A message of the tool conversation (chat completions roles, with the assistant's tool calls kept). */
export type ToolChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** What the offline demo agent reads to act deterministically. */
export interface ToolFacts {
  lastProspectMessage: string | null;
  /** Results of tools already called this turn, in order. */
  results: { name: string; ok: boolean; value: unknown }[];
}

export interface ToolRequest {
  model: string;
  messages: ToolChatMessage[];
  tools: ToolDefinition[];
  facts: ToolFacts;
}

/** The model's move: calls to run, or none (it is ready to write the reply). */
export interface ToolStep {
  toolCalls: ToolCall[];
  model: string;
  usage: { promptTokens: number; completionTokens: number } | null;
}
