import type { ChannelAccount, OutboundPart } from './types.ts';
import { agentError, type AgentErrorRecord } from '../conversations/agent-errors.ts';

const HOUR = 3_600_000;
/** Meta's standard messaging window after the prospect's last message. */
export const STANDARD_WINDOW_MS = 24 * HOUR;
/** How long a person (never the AI) may still answer on Instagram/Messenger with the HUMAN_AGENT tag. */
export const HUMAN_AGENT_WINDOW_MS = 7 * 24 * HOUR;

export type WindowDecision =
  | { ok: true; send: Pick<OutboundPart, 'humanAgentTag' | 'template'> }
  | { ok: false; record: AgentErrorRecord };

const outside = (message: string, code: string): WindowDecision => ({
  ok: false,
  record: agentError('messaging-window', code, message),
});

/**
 * Meta's messaging windows (DESIGN.md §7): on Instagram and Messenger anything goes out within 24 hours of the
 * prospect's last message; after that only a person's message, tagged HUMAN_AGENT, within 7 days. On WhatsApp,
 * outside 24 hours only an approved template configured on the account (`config.templates.outsideWindow`)
 * may be sent — or the message's own template (`template`: a campaign's, docs/campaigns.md). SMS has no window.
 */
export function decideWindow(
  account: Pick<ChannelAccount, 'type' | 'config'>,
  lastProspectMessageAt: Date | null,
  writtenByHuman: boolean,
  now = Date.now(),
  template: OutboundPart['template'] | null = null,
): WindowDecision {
  const age = lastProspectMessageAt ? now - lastProspectMessageAt.getTime() : Infinity;
  if (account.type === 'INSTAGRAM' || account.type === 'FACEBOOK') {
    if (age <= STANDARD_WINDOW_MS) return { ok: true, send: {} };
    if (writtenByHuman && age <= HUMAN_AGENT_WINDOW_MS) return { ok: true, send: { humanAgentTag: true } };
    return writtenByHuman
      ? outside('Not sent: the prospect last wrote more than 7 days ago, past even the HUMAN_AGENT window.', 'OUTSIDE_HUMAN_AGENT_WINDOW')
      : outside('Not sent: the prospect last wrote more than 24 hours ago; Meta allows only a person to answer now (within 7 days).', 'OUTSIDE_24H_WINDOW');
  }
  if (account.type === 'WHATSAPP' && age > STANDARD_WINDOW_MS) {
    const chosen = template ?? outsideWindowTemplate(account.config);
    if (chosen) return { ok: true, send: { template: chosen } };
    return outside(
      'Not sent: the prospect last wrote more than 24 hours ago, and WhatsApp then allows only an approved template (set config.templates.outsideWindow on the account).',
      'OUTSIDE_24H_WINDOW',
    );
  }
  return { ok: true, send: {} };
}

/** The account's approved template for business-initiated WhatsApp messages (`config.templates.outsideWindow`), or null. */
export function outsideWindowTemplate(config: Record<string, unknown>): OutboundPart['template'] | null {
  const templates = config.templates;
  if (!templates || typeof templates !== 'object') return null;
  const template = (templates as Record<string, unknown>).outsideWindow;
  if (!template || typeof template !== 'object') return null;
  const { name, language, components } = template as Record<string, unknown>;
  if (typeof name !== 'string' || !name) return null;
  return { name, language: typeof language === 'string' && language ? language : 'en_US', ...(Array.isArray(components) ? { components } : {}) };
}
