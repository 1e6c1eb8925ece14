import type { AgentErrorRecord } from '../conversations/agent-errors.ts';

/** The messaging account types of spec §3 that are live channels (docs/channels.md). */
export type ChannelType = 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP' | 'TWILIO' | 'SMS_GATEWAY';

/**
 * A messaging account as a channel sees it: token decrypted, config parsed. Mapping (fixed, issue #8):
 * INSTAGRAM pageId = professional account id, config.login 'facebook' (default, META_GRAPH_URL) | 'instagram'
 * (INSTAGRAM_GRAPH_URL); FACEBOOK pageId = Page id; WHATSAPP pageId = phone_number_id, config.wabaId?,
 * config.templates?; TWILIO pageId = the number (E.164), accessToken = Auth Token, config.accountSid;
 * SMS_GATEWAY pageId = device id, accessToken = 'login:password', config.baseUrl, config.signingKey.
 */
export interface ChannelAccount {
  id: number;
  type: ChannelType;
  pageId: string;
  accessToken: string;
  config: Record<string, unknown>;
}

/** One part of an outbound message (already split to the channel's limit). */
export interface OutboundPart {
  /** Instagram/Messenger PSID/IGSID, WhatsApp wa_id, phone number in E.164 for SMS. */
  recipientId: string;
  text: string;
  /**
   * Meta only: send with `messaging_type: MESSAGE_TAG, tag: HUMAN_AGENT` (a person's message, 24 h – 7 days
   * after the prospect's last message). Never set for AI-written text.
   */
  humanAgentTag?: boolean;
  /** WhatsApp only: outside the 24 h window, send this approved template instead of free-form text. */
  template?: { name: string; language: string; components?: unknown[] };
}

/** What the provider answered for a successful send. */
export interface SendResult {
  /** The provider's id of the sent message (Meta message_id, wamid, Twilio SM…, gateway id). */
  externalId: string;
}

/**
 * A send that failed. `transient` decides whether the outbox retries it (network, 5xx, 429, Meta 1/2/4/17/32/613,
 * Twilio 20429) or gives up (Meta 190, 10/2018278, 551, 100, 200; Twilio 21211, 21610; gateway 4xx).
 * `record` is what the unanswered list shows (spec §3 error fields), with every token removed.
 */
export class ChannelSendError extends Error {
  constructor(
    readonly record: AgentErrorRecord,
    readonly transient: boolean,
  ) {
    super(record.message);
    this.name = 'ChannelSendError';
  }
}

/** Provider base URLs and versions (from AppConfig), passed in so senders stay free of globals. */
export interface ChannelEndpoints {
  META_GRAPH_URL: string;
  META_GRAPH_VERSION: string;
  INSTAGRAM_GRAPH_URL: string;
  TWILIO_API_URL: string;
  /** Our public address: Twilio posts each SMS's status callbacks to PUBLIC_URL/api/twilio/sms-status. */
  PUBLIC_URL?: string;
  /** ALLOW_PRIVATE_URLS: ADMIN-set provider URLs (an SMS gateway's baseUrl) may reach private addresses. */
  ALLOW_PRIVATE_URLS?: boolean;
}

/** One sender per channel type. */
export interface ChannelSender {
  /** The channel's text limit: Instagram 1,000 bytes (UTF-8), Messenger 2,000 chars, WhatsApp 4,096, SMS 1,600. */
  limit: { unit: 'bytes' | 'chars'; max: number };
  send(endpoints: ChannelEndpoints, account: ChannelAccount, part: OutboundPart): Promise<SendResult>;
}
