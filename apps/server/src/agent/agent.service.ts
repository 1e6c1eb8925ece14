/**
 * The boundary between the conversation routes (modules/conversations) and the AI agent (agent/).
 * Routes call only these functions; everything behind them (turn loop, LLM providers, follow-ups,
 * locking) is the agent's business. Signatures are the contract between the two; bodies are built with
 * the engine (issue "The AI sales agent").
 */
import type { Actor, AppContext } from '../context.ts';
import { AppError } from '../lib/errors.ts';

export interface StoredMessage {
  id: number;
  conversationId: number;
  role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
  message: string;
  dateSent: Date;
}

const notBuilt = () => new AppError(501, 'NOT_IMPLEMENTED', 'The agent is not available yet.');

/** Creates a web-chat conversation of a type (phase 0) and stores its initialMessage as the first AGENT message. */
export async function startWebConversation(_ctx: AppContext, _conversationTypeId: number): Promise<{ id: number; uuid: string }> {
  throw notBuilt();
}

/**
 * Stores a prospect's message (web visitor or channel) and schedules the agent's turn (debounce window,
 * phase -3 meanwhile). Redelivered channel messages (same externalId) are ignored.
 */
export async function receiveProspectMessage(
  _ctx: AppContext,
  _conversationId: number,
  _text: string,
  _options: { externalId?: string; dateSent?: Date } = {},
): Promise<StoredMessage | null> {
  throw notBuilt();
}

/** A person writes as the business on a prospect conversation: stored as AGENT, sent, and the AI pauses there. */
export async function sendHumanMessage(_ctx: AppContext, _conversationId: number, _text: string, _actor: Actor): Promise<StoredMessage> {
  throw notBuilt();
}

/** Writes and sends a follow-up now from the phase's followUpPrompt; answers the notice to show. */
export async function triggerFollowUp(_ctx: AppContext, _conversationId: number): Promise<{ message: string }> {
  throw notBuilt();
}

/** Admin sets any phase code (spec §4); setting a working phase resumes a paused AI. */
export async function setConversationPhase(_ctx: AppContext, _conversationId: number, _phase: number): Promise<void> {
  throw notBuilt();
}
