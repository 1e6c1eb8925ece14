/**
 * Marks every message written by the offline demo agent (used when no LLM is configured, DESIGN.md §6),
 * so screens can label it "Demo agent (offline)". The prefix is part of the stored message text.
 */
export const DEMO_AGENT_PREFIX = '[Demo agent (offline)] ';
export const DEMO_AGENT_LABEL = 'Demo agent (offline)';

/** True when a stored AGENT message was written by the offline demo agent. */
export function isDemoAgentMessage(text: string): boolean {
  return text.startsWith(DEMO_AGENT_PREFIX);
}
