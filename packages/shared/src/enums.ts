/** Roles of a signed-in user (spec §6). Anonymous visitors have no role. */
export const ROLES = ['ADMIN', 'NORMAL'] as const;
export type Role = (typeof ROLES)[number];

/** Who wrote a message (spec §3). */
export const MESSAGE_ROLES = ['SYSTEM', 'PROSPECT', 'AGENT'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** Messaging account types (spec §3). */
export const ACCOUNT_TYPES = ['INSTAGRAM', 'FACEBOOK', 'TWILIO', 'WHATSAPP', 'SMS_GATEWAY'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const DEFAULT_ACCOUNT_TYPE: AccountType = 'INSTAGRAM';

/** Unanswered conversation status (spec §3, §4). */
export const UNANSWERED_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type UnansweredStatus = (typeof UNANSWERED_STATUSES)[number];

/**
 * Special phase codes (spec §4). Working phases are 0..N-1 and N (the number of phases) ends the
 * conversation; these are the codes outside that range.
 */
export const PHASE = {
  WAITING: -3,
  NEEDS_HUMAN: -2,
  ERRORED: -1,
  IGNORED: 9999,
} as const;

/** A working phase (0..N-1): the agent is on it, and follow-ups and hand-back make sense. Server and web share it. */
export const isWorkingPhase = (phase: number, phaseCount: number) => phase >= 0 && phase < phaseCount;

/**
 * Human-readable label of a phase code, in the spec's words (§4); `phaseCount` is N, the number of phases of
 * the type. The one set of phase words of server and web: `phaseWords` builds on it.
 */
export function phaseLabel(phase: number, phaseCount: number): string {
  switch (phase) {
    case PHASE.WAITING:
      return 'Waiting for more messages';
    case PHASE.NEEDS_HUMAN:
      return 'Needs human intervention';
    case PHASE.ERRORED:
      return 'Errored';
    case PHASE.IGNORED:
      return 'Ignored conversation';
    default:
      return phase === phaseCount ? 'End conversation' : `Phase ${phase}`;
  }
}

/**
 * Where a conversation stands, for people rather than admins reading codes (the inbox, issue 12): a working
 * phase as 'Step 2 of 3', every other code as `phaseLabel` says it. A type without phases has not ended at
 * phase 0 (the server's rule), so that stays 'Phase 0'.
 */
export function phaseWords(phase: number, phaseCount: number): string {
  if (phase >= 0 && phase < phaseCount) return `Step ${phase + 1} of ${phaseCount}`;
  if (phase >= 0 && phaseCount === 0) return `Phase ${phase}`;
  return phaseLabel(phase, phaseCount);
}

/** Conversation list orderings (spec §9). */
export const CONVERSATION_ORDERS = ['latestMessageDate', 'latestConversations'] as const;
export type ConversationOrder = (typeof CONVERSATION_ORDERS)[number];

/** App config keys (spec §3); `globalMessage` is our addition that drives the shell's notification. */
export const APP_CONFIG_KEYS = ['registerHTML', 'supportMessage', 'onboardingHTML', 'globalMessage'] as const;
export type AppConfigKey = (typeof APP_CONFIG_KEYS)[number];
