import type { AccountType } from '@sales-agent/shared/enums';

/** The receiving messaging account, as far as a payload needs it. */
export interface SimulatedAccount {
  id: number;
  type: AccountType;
  pageId: string;
  pageName: string;
  /** The account's config JSON text (WhatsApp wabaId, Twilio accountSid). */
  config: string;
}

export interface SimulationInput {
  channel: AccountType;
  account: SimulatedAccount;
  /** Instagram IGSID, Messenger PSID, WhatsApp wa_id, or the phone number of an SMS. */
  senderId: string;
  text: string;
  /** WhatsApp only: the contact's profile name, as WhatsApp sends it in `contacts[]`. */
  profileName?: string;
  /** For tests: the clock and the random id source. */
  now?: Date;
  randomId?: () => string;
}

/** Where a simulated message goes and what is posted. */
export interface Simulation {
  url: string;
  body: unknown;
}

const META_WEBHOOK = '/api/meta-api/webhook';
const TWILIO_SIMULATION = '/api/admin/webhook-simulation/twilio';
const SMS_GATEWAY_SIMULATION = '/api/admin/webhook-simulation/sms-gateway';

/** What the sender is on each channel: field help and an example. */
export const SENDER_HINTS: Record<AccountType, { description: string; placeholder: string }> = {
  INSTAGRAM: { description: "The prospect's Instagram-scoped id (IGSID)", placeholder: '17841400000000001' },
  FACEBOOK: { description: "The prospect's page-scoped id (PSID)", placeholder: '6280000000000001' },
  WHATSAPP: { description: "The prospect's WhatsApp id: the phone number with country code, digits only", placeholder: '16505551234' },
  TWILIO: { description: "The prospect's phone number in E.164", placeholder: '+16505551234' },
  SMS_GATEWAY: { description: "The prospect's phone number in E.164", placeholder: '+16505551234' },
};

function randomHex(length: number): string {
  const bytes = new Uint8Array(Math.ceil(length / 2));
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, length);
}

/** A fresh sender id in the channel's format, so a simulation never speaks as a real prospect. */
export function randomSenderId(channel: AccountType): string {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');
  switch (channel) {
    case 'INSTAGRAM':
      return `1784${digits(13)}`;
    case 'FACEBOOK':
      return `62${digits(14)}`;
    case 'WHATSAPP':
      return `1555${digits(7)}`;
    default:
      return `+1555${digits(7)}`;
  }
}

function configOf(account: SimulatedAccount): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(account.config || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The provider's own payload for one inbound text message on the chosen channel (docs/channels.md):
 * - Instagram (spec §3) and Messenger: `{object, entry:[{id, time, messaging:[{sender, recipient, timestamp,
 *   message:{mid, text}}]}]}` with object `instagram` or `page`, posted to the Meta webhook;
 * - WhatsApp Cloud: `whatsapp_business_account` with `changes[].value` holding metadata.phone_number_id,
 *   contacts (profile name, wa_id) and messages[] (from, id, timestamp in seconds, type text);
 * - Twilio: the inbound SMS form parameters; SMS gateway: an `sms:received` event — both to their ADMIN
 *   simulation endpoints, which feed the same pipeline.
 */
export function buildSimulation(input: SimulationInput): Simulation {
  const now = input.now ?? new Date();
  const id = input.randomId ?? (() => randomHex(32));
  const ms = now.getTime();
  const sender = input.senderId.trim();
  const text = input.text;
  const { account } = input;
  const config = configOf(account);

  switch (input.channel) {
    case 'INSTAGRAM':
    case 'FACEBOOK':
      return {
        url: META_WEBHOOK,
        body: {
          object: input.channel === 'INSTAGRAM' ? 'instagram' : 'page',
          entry: [
            {
              id: account.pageId,
              time: ms,
              messaging: [
                {
                  sender: { id: sender },
                  recipient: { id: account.pageId },
                  timestamp: ms,
                  message: { mid: `m_sim_${id()}`, text },
                },
              ],
            },
          ],
        },
      };
    case 'WHATSAPP': {
      const profileName = input.profileName?.trim();
      const displayNumber = account.pageName.replace(/\D/g, '');
      return {
        url: META_WEBHOOK,
        body: {
          object: 'whatsapp_business_account',
          entry: [
            {
              id: typeof config.wabaId === 'string' && config.wabaId ? config.wabaId : account.pageId,
              changes: [
                {
                  field: 'messages',
                  value: {
                    messaging_product: 'whatsapp',
                    metadata: {
                      display_phone_number: displayNumber.length >= 6 ? displayNumber : account.pageId,
                      phone_number_id: account.pageId,
                    },
                    contacts: [{ ...(profileName ? { profile: { name: profileName } } : {}), wa_id: sender }],
                    messages: [
                      {
                        from: sender,
                        id: `wamid.SIM${id().toUpperCase()}`,
                        timestamp: String(Math.floor(ms / 1000)),
                        type: 'text',
                        text: { body: text },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      };
    }
    case 'TWILIO':
      return {
        url: TWILIO_SIMULATION,
        body: {
          MessageSid: `SM${id()}`,
          ...(typeof config.accountSid === 'string' && config.accountSid ? { AccountSid: config.accountSid } : {}),
          From: sender,
          To: account.pageId,
          Body: text,
          NumMedia: '0',
        },
      };
    case 'SMS_GATEWAY': {
      const eventId = id();
      return {
        url: SMS_GATEWAY_SIMULATION,
        body: {
          deviceId: account.pageId,
          event: 'sms:received',
          id: eventId,
          payload: { message: text, phoneNumber: sender, messageId: `sim-${eventId}`, receivedAt: now.toISOString() },
        },
      };
    }
  }
}
