import type { ChannelType } from './types.ts';

/**
 * Provider payloads turned into the few events the product acts on. Every item of `entry[]`, `messaging[]`
 * and `changes[]` is looked at; what the product does not act on (delivery and read receipts, reactions,
 * deleted-message notices, statuses other than failed) is skipped without error. Parsing is defensive: a
 * payload is already verified, but a field of an unexpected type skips that item, never the whole event.
 */
export type InboundEvent =
  | {
      kind: 'message';
      channel: ChannelType;
      /** The receiving account's pageId (Meta page / IG account / phone_number_id, Twilio number, device id). */
      accountKey: string;
      senderId: string;
      senderName: string | null;
      externalId: string;
      text: string;
      sentAt: Date;
    }
  | {
      /** A message the business's account sent (Meta `is_echo`): ours, or a person writing from Meta's inbox. */
      kind: 'echo';
      channel: ChannelType;
      accountKey: string;
      recipientId: string;
      externalId: string;
      text: string;
      appId: string | null;
      sentAt: Date;
    }
  | {
      /** WhatsApp reported that one of our sends failed after it was accepted (e.g. 131047 outside 24 h). */
      kind: 'send-failed';
      channel: ChannelType;
      accountKey: string;
      externalId: string;
      code: string | null;
      message: string;
      details: string | null;
    };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const dateFromMs = (v: unknown): Date => (typeof v === 'number' && Number.isFinite(v) ? new Date(v) : new Date());

/** Meta: `object` instagram | page | whatsapp_business_account. */
export function parseMetaPayload(payload: unknown): InboundEvent[] {
  if (!isObject(payload)) return [];
  const channel: ChannelType | null =
    payload.object === 'instagram' ? 'INSTAGRAM' : payload.object === 'page' ? 'FACEBOOK' : payload.object === 'whatsapp_business_account' ? 'WHATSAPP' : null;
  if (!channel) return [];
  const events: InboundEvent[] = [];
  for (const entry of asArray(payload.entry)) {
    if (!isObject(entry)) continue;
    if (channel === 'WHATSAPP') {
      for (const change of asArray(entry.changes)) if (isObject(change)) events.push(...parseWhatsAppChange(change));
    } else {
      const entryId = str(entry.id);
      for (const item of asArray(entry.messaging)) if (isObject(item)) events.push(...parseMessagingItem(channel, entryId, item));
    }
  }
  return events;
}

function parseMessagingItem(channel: ChannelType, entryId: string | null, item: Json): InboundEvent[] {
  const senderId = isObject(item.sender) ? str(item.sender.id) : null;
  const recipientId = isObject(item.recipient) ? str(item.recipient.id) : null;
  const sentAt = dateFromMs(item.timestamp);
  if (isObject(item.message)) {
    const message = item.message;
    const mid = str(message.mid);
    if (!mid || message.is_deleted === true || message.is_unsupported === true) return [];
    const text = messageText(message);
    if (!text) return [];
    if (message.is_echo === true) {
      // The page/account is the sender of an echo; the prospect is the recipient.
      const accountKey = senderId ?? entryId;
      if (!accountKey || !recipientId) return [];
      return [{ kind: 'echo', channel, accountKey, recipientId, externalId: mid, text, appId: str(message.app_id), sentAt }];
    }
    const accountKey = recipientId ?? entryId;
    if (!accountKey || !senderId) return [];
    return [{ kind: 'message', channel, accountKey, senderId, senderName: null, externalId: mid, text, sentAt }];
  }
  if (isObject(item.postback)) {
    // A tapped button: the prospect's choice is what they "said". Meta gives postbacks an mid on Instagram only.
    const title = str(item.postback.title) ?? str(item.postback.payload);
    const accountKey = recipientId ?? entryId;
    if (!title || !accountKey || !senderId) return [];
    const externalId = str(item.postback.mid) ?? `postback:${senderId}:${String(item.timestamp ?? '')}`;
    return [{ kind: 'message', channel, accountKey, senderId, senderName: null, externalId, text: title, sentAt }];
  }
  // delivery, read, reaction, referral, optin …: nothing to act on.
  return [];
}

/** Text of a Messenger/Instagram message: its text, then one readable line per attachment. */
function messageText(message: Json): string {
  const lines: string[] = [];
  const text = str(message.text);
  if (text) lines.push(text);
  for (const attachment of asArray(message.attachments)) {
    if (!isObject(attachment)) continue;
    const type = str(attachment.type) ?? 'attachment';
    const payload = isObject(attachment.payload) ? attachment.payload : {};
    const url = str(payload.url) ?? str(payload.title) ?? '';
    lines.push(`[${type}]${url ? ` ${url}` : ''}`);
  }
  return lines.join('\n').trim();
}

function parseWhatsAppChange(change: Json): InboundEvent[] {
  if (change.field !== 'messages' || !isObject(change.value)) return [];
  const value = change.value;
  const accountKey = isObject(value.metadata) ? str(value.metadata.phone_number_id) : null;
  if (!accountKey) return [];
  const names = new Map<string, string>();
  for (const contact of asArray(value.contacts)) {
    if (!isObject(contact)) continue;
    const waId = str(contact.wa_id);
    const name = isObject(contact.profile) ? str(contact.profile.name) : null;
    if (waId && name) names.set(waId, name);
  }
  const events: InboundEvent[] = [];
  for (const message of asArray(value.messages)) {
    if (!isObject(message)) continue;
    const senderId = str(message.from);
    const externalId = str(message.id);
    const text = whatsAppText(message);
    if (!senderId || !externalId || !text) continue;
    const seconds = Number(message.timestamp);
    events.push({
      kind: 'message',
      channel: 'WHATSAPP',
      accountKey,
      senderId,
      senderName: names.get(senderId) ?? null,
      externalId,
      text,
      sentAt: Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date(),
    });
  }
  for (const status of asArray(value.statuses)) {
    if (!isObject(status) || status.status !== 'failed') continue;
    const externalId = str(status.id);
    if (!externalId) continue;
    const error = isObject(asArray(status.errors)[0]) ? (asArray(status.errors)[0] as Json) : {};
    const errorData = isObject(error.error_data) ? str(error.error_data.details) : null;
    events.push({
      kind: 'send-failed',
      channel: 'WHATSAPP',
      accountKey,
      externalId,
      code: str(error.code),
      message: `WhatsApp could not deliver the message: ${str(error.message) ?? str(error.title) ?? 'unknown reason'}`,
      details: errorData,
    });
  }
  return events;
}

/** Text of a WhatsApp message of any type; reactions and unknown types give '' (skipped). */
function whatsAppText(message: Json): string {
  const type = str(message.type) ?? '';
  const part = isObject(message[type]) ? (message[type] as Json) : {};
  switch (type) {
    case 'text':
      return str(part.body) ?? '';
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const caption = str(part.caption) ?? str(part.filename);
      return `[${type}] media ${str(part.id) ?? ''}${caption ? ` ${caption}` : ''}`.trim();
    }
    case 'location':
      return `[location] ${String(part.latitude ?? '')},${String(part.longitude ?? '')}${str(part.name) ? ` ${str(part.name)}` : ''}`;
    case 'button':
      return str(part.text) ?? '';
    case 'interactive': {
      const reply = isObject(part.button_reply) ? part.button_reply : isObject(part.list_reply) ? part.list_reply : {};
      return str(reply.title) ?? '';
    }
    default:
      return '';
  }
}

/** Twilio's inbound SMS/MMS form parameters. */
export function parseTwilioSms(params: Record<string, string>): InboundEvent[] {
  const { MessageSid: externalId, From: senderId, To: accountKey } = params;
  if (!externalId || !senderId || !accountKey) return [];
  const lines = params.Body?.trim() ? [params.Body.trim()] : [];
  const media = Math.min(Number(params.NumMedia ?? 0) || 0, 10);
  for (let i = 0; i < media; i += 1) {
    const url = params[`MediaUrl${i}`];
    if (url) lines.push(`[${(params[`MediaContentType${i}`] ?? 'media').split('/')[0]}] ${url}`);
  }
  const text = lines.join('\n');
  if (!text) return [];
  return [{ kind: 'message', channel: 'TWILIO', accountKey, senderId, senderName: null, externalId, text, sentAt: new Date() }];
}

/** SMS Gateway for Android: `sms:received` (other events — sent, delivered, failed, ping — are skipped). */
export function parseSmsGatewayEvent(event: unknown): InboundEvent[] {
  if (!isObject(event) || event.event !== 'sms:received' || !isObject(event.payload)) return [];
  const payload = event.payload;
  const accountKey = str(event.deviceId);
  const senderId = str(payload.phoneNumber);
  const externalId = str(payload.messageId) ?? str(event.id);
  const text = str(payload.message)?.trim() ?? '';
  if (!accountKey || !senderId || !externalId || !text) return [];
  const received = typeof payload.receivedAt === 'string' ? new Date(payload.receivedAt) : new Date();
  return [{
    kind: 'message',
    channel: 'SMS_GATEWAY',
    accountKey,
    senderId,
    senderName: null,
    externalId,
    text,
    sentAt: Number.isNaN(received.getTime()) ? new Date() : received,
  }];
}
