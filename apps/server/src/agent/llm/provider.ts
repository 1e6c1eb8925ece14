import type { z } from 'zod';
import type { AgentErrorRecord } from '../../conversations/agent-errors.ts';
import type { ToolNote } from '../tools/tool-notes.ts';
import type { ToolRequest, ToolStep } from '../tools/tool-types.ts';

/** What an LLM call is for; recorded with its usage and used by the offline demo agent to answer. */
export type LlmPurpose = 'trigger' | 'transition' | 'draft' | 'guard' | 'rating' | 'analysis' | 'follow-up' | 'tools' | 'test-prospect' | 'test-judge';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A structured (JSON-schema) answer: the schema sent to the model and the zod schema that checks it. */
export interface JsonAnswer<T> {
  /** Name of the json_schema (also lets a fake server tell decisions apart). */
  name: string;
  schema: Record<string, unknown>;
  parse: z.ZodType<T>;
}

/**
 * The playbook facts a request was built from. A real model reads the prompt text in `messages`; the offline
 * demo agent answers deterministically from these facts instead.
 */
export interface PlaybookFacts {
  phaseIndex: number;
  phaseCount: number;
  phasePrompt: string;
  followUpPrompt: string | null;
  /** Prospect messages in the whole conversation. */
  prospectMessageCount: number;
  /** The latest prospect message, when any. */
  lastProspectMessage: string | null;
  /** What the tools called this turn answered (agent/tools/tool-notes.ts), for the demo agent's reply. */
  toolNotes: ToolNote[];
  /** Issue 21: the knowledge passages of a draft for a type with knowledge collections (possibly none). */
  knowledge?: { text: string; title?: string }[];
  /** The closing reply of an ended playbook (issue 24): the demo agent confirms the next step. */
  closing?: boolean;
  /** The outcome analysis of an ended conversation (agent/outcome-analysis.ts): what the demo agent decides from. */
  analysis?: { outcomes: string[]; booked: boolean; ended: 'ended' | 'needsHuman' | 'errored' | 'unfinished' | 'notReached'; phase: number };
}

export interface LlmRequest<T> {
  purpose: LlmPurpose;
  messages: ChatMessage[];
  answer: JsonAnswer<T>;
  model: string;
  temperature: number;
  facts: PlaybookFacts;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface LlmResult<T> {
  value: T;
  /** The model that answered (as reported by the server), used for pricing. */
  model: string;
  /** Null when nothing was billed (the offline demo agent). */
  usage: LlmUsage | null;
}

/** One way to ask a language model; chosen once per process in select-provider.ts. */
export interface LlmProvider {
  readonly kind: 'openai' | 'offline-demo';
  complete<T>(request: LlmRequest<T>): Promise<LlmResult<T>>;
  /** One step of the tool loop (agent/tools/tool-step.ts): the calls the model asks for, or none. */
  act(request: ToolRequest): Promise<ToolStep>;
}


/** An LLM call failed for good (after the SDK's retries): timeouts, 5xx, 429, refusals, unreadable answers. */
export class LlmError extends Error {
  constructor(readonly record: AgentErrorRecord) {
    super(record.message);
    this.name = 'LlmError';
  }
}
