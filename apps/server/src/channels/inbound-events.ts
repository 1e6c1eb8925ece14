import type { ChannelType } from './types.ts';

/**
 * Provider payloads turned into the few events the product acts on. Every item of `entry[]`, `messaging[]`
 * and `changes[]` is looked at; what the product does not act on (reactions, referrals, unknown statuses) is
 * skipped without error, and a message we cannot read becomes an
 * `unsupported` event (a visible note), never nothing. Parsing is defensive: a
 * payload is already verified, but a field of an unexpected type skips that item, never the whole event.
 */
/** A voice note or picture the prospect sent, fetched and stored by us when the message is received. */
export interface InboundMedia {
  kind: 'audio' | 'image';
  /** WhatsApp: the media id (resolved to a short-lived URL with the account's token); Instagram/Messenger: the CDN URL. */
  source: { mediaId: string } | { url: string };
  mimeType: string | null;
}

/** Who sent a prospect's message (`message` and `unsupported` events) and its provider id. */
interface InboundFromProspect {
  channel: ChannelType;
  /** The receiving account's pageId (Meta page / IG account / phone_number_id, Twilio number, device id). */
  accountKey: string;
  /** The id replies go to: PSID/IGSID, WhatsApp wa_id (phone) or, without one, the business-scoped user id. */
  senderId: string;
  senderName: string | null;
  /** WhatsApp only: the business-scoped user id (BSUID, `from_user_id` / `contacts[].user_id`) when given. */
  senderUserId?: string | null;
  externalId: string;
}

export type InboundEvent =
  | (InboundFromProspect & {
      kind: 'message';
      text: string;
      sentAt: Date;
      /** Audio and images to fetch, store and (audio) transcribe before the message is stored. */
      media?: InboundMedia[];
      /** Messenger handover: another app holds the thread (`entry[].standby[]`): stored, not answered. */
      standby?: boolean;
    })
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
      /**
       * The channel reported one of our sends sent, delivered or read (issue 24: the message's delivery state):
       * WhatsApp `statuses`, Twilio status callbacks, the SMS gateway's `sms:sent` / `sms:delivered`.
       */
      kind: 'delivery-status';
      channel: ChannelType;
      accountKey: string;
      externalId: string;
      state: 'sent' | 'delivered' | 'read';
    }
  | {
      /**
       * Messenger `delivery` / `read` and Instagram `read` (messaging_seen): everything we sent to `prospectId`
       * up to `watermark` (Meta's ms timestamp) — and the messages `mids`, and anything we sent before them —
       * reached the prospect or was read. `externalId` only names the event in logs.
       */
      kind: 'delivery-watermark';
      channel: ChannelType;
      accountKey: string;
      prospectId: string;
      externalId: string;
      state: 'delivered' | 'read';
      watermark: Date | null;
      mids: string[];
    }
  | {
      /**
       * The channel reported that one of our sends failed after it was accepted: WhatsApp (e.g. 131047 outside
       * 24 h), Twilio `undelivered` / `failed`, the SMS gateway's `sms:failed`.
       */
      kind: 'send-failed';
      channel: ChannelType;
      accountKey: string;
      externalId: string;
      code: string | null;
      message: string;
      details: string | null;
    }
  | (InboundFromProspect & {
      /**
       * The prospect sent something we cannot turn into text (WhatsApp `unsupported` or an unknown type,
       * Instagram `is_unsupported`): a visible note on the conversation and a warning log line, never dropped.
       */
      kind: 'unsupported';
      /** What the provider said about it (type, error title), for the note and the log. */
      reason: string;
      sentAt: Date;
    })
  | {
      /** Instagram/Messenger `message_edit`: the prospect changed the text of message `externalId`. */
      kind: 'edit';
      channel: ChannelType;
      accountKey: string;
      senderId: string;
      externalId: string;
      text: string;
      sentAt: Date;
    }
  | {
      /** Instagram `message.is_deleted` (or Messenger's delete notice): the prospect removed message `externalId`. */
      kind: 'delete';
      channel: ChannelType;
      accountKey: string;
      senderId: string;
      externalId: string;
      sentAt: Date;
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
      for (const item of asArray(entry.messaging)) if (isObject(item)) events.push(...parseMessagingItem(channel, entryId, item, false));
      // Handover protocol (Messenger): while another app holds the thread, its events (the prospect's messages
      // and that app's or a person's echoes) come as `standby` items of the same shape.
      for (const item of asArray(entry.standby)) if (isObject(item)) events.push(...parseMessagingItem(channel, entryId, item, true));
    }
  }
  return events;
}

/**
 * One `messaging[]` / `standby[]` item (Messenger and Instagram webhooks reference: messages, message_echoes,
 * message_edits, messaging_postbacks, standby; developers.facebook.com/docs/messenger-platform/webhooks).
 */
function parseMessagingItem(channel: ChannelType, entryId: string | null, item: Json, standby: boolean): InboundEvent[] {
  const senderId = isObject(item.sender) ? str(item.sender.id) : null;
  const recipientId = isObject(item.recipient) ? str(item.recipient.id) : null;
  const sentAt = dateFromMs(item.timestamp);
  if (isObject(item.message_edit)) {
    // `message_edit {mid, text, num_edit}`: the prospect changed a message they sent.
    const mid = str(item.message_edit.mid);
    const accountKey = recipientId ?? entryId;
    const text = typeof item.message_edit.text === 'string' ? item.message_edit.text.trim() : '';
    if (!mid || !accountKey || !senderId || !text) return [];
    return [{ kind: 'edit', channel, accountKey, senderId, externalId: mid, text, sentAt }];
  }
  if (isObject(item.message)) {
    const message = item.message;
    const mid = str(message.mid);
    if (!mid) return [];
    const accountKey = recipientId ?? entryId;
    if (message.is_deleted === true) {
      if (!accountKey || !senderId) return [];
      return [{ kind: 'delete', channel, accountKey, senderId, externalId: mid, sentAt }];
    }
    if (message.is_echo === true) {
      const text = messageText(message).text;
      if (!text) return [];
      // The page/account is the sender of an echo; the prospect is the recipient.
      const echoAccount = senderId ?? entryId;
      if (!echoAccount || !recipientId) return [];
      return [{ kind: 'echo', channel, accountKey: echoAccount, recipientId, externalId: mid, text, appId: str(message.app_id), sentAt }];
    }
    if (!accountKey || !senderId) return [];
    if (message.is_unsupported === true) {
      return [{ kind: 'unsupported', channel, accountKey, senderId, senderName: null, externalId: mid, reason: 'is_unsupported', sentAt }];
    }
    const { text, media } = messageText(message);
    if (!text) {
      return [{ kind: 'unsupported', channel, accountKey, senderId, senderName: null, externalId: mid, reason: 'no text or attachment', sentAt }];
    }
    return [{ kind: 'message', channel, accountKey, senderId, senderName: null, externalId: mid, text, sentAt, ...(media.length ? { media } : {}), ...(standby ? { standby } : {}) }];
  }
  if (isObject(item.postback)) {
    // A tapped button: the prospect's choice is what they "said", its payload kept with it. Meta gives
    // postbacks an mid on Instagram only.
    const title = str(item.postback.title);
    const payload = str(item.postback.payload);
    const text = withPayload(title ?? payload, title ? payload : null);
    const accountKey = recipientId ?? entryId;
    if (!text || !accountKey || !senderId) return [];
    const externalId = str(item.postback.mid) ?? `postback:${senderId}:${String(item.timestamp ?? '')}`;
    return [{ kind: 'message', channel, accountKey, senderId, senderName: null, externalId, text, sentAt, ...(standby ? { standby } : {}) }];
  }
  const receipt = parseReceipt(channel, recipientId ?? entryId, senderId, item);
  if (receipt) return [receipt];
  // reaction, referral, optin …: nothing to act on.
  return [];
}

/**
 * Messenger `delivery {mids?, watermark}` (message_deliveries) and `read {watermark}` (message_reads);
 * Instagram `read {mid}` (messaging_seen; a watermark is read too when given). The prospect is the sender.
 */
function parseReceipt(channel: ChannelType, accountKey: string | null, prospectId: string | null, item: Json): InboundEvent | null {
  const receipt = isObject(item.read) ? item.read : isObject(item.delivery) ? item.delivery : null;
  if (!receipt || !accountKey || !prospectId) return null;
  const state = receipt === item.read ? 'read' : 'delivered';
  const mids = [...asArray(receipt.mids).map(str), str(receipt.mid)].filter((mid): mid is string => mid !== null);
  const watermark = typeof receipt.watermark === 'number' && Number.isFinite(receipt.watermark) ? new Date(receipt.watermark) : null;
  if (!watermark && mids.length === 0) return null;
  const externalId = mids[0] ?? `${state}:${prospectId}:${String(receipt.watermark)}`;
  return { kind: 'delivery-watermark', channel, accountKey, prospectId, externalId, state, watermark, mids };
}

/** "title [payload: X]": a button's or quick reply's payload kept with what the prospect saw. */
function withPayload(text: string | null, payload: string | null): string {
  if (!text) return '';
  return payload && payload !== text ? `${text} [payload: ${payload}]` : text;
}

/**
 * Text of a Messenger/Instagram message: its text (with a quick reply's payload), then one line per
 * attachment. Audio and images become media to fetch and store (their CDN URLs expire); others a line
 * with their URL.
 */
function messageText(message: Json): { text: string; media: InboundMedia[] } {
  const lines: string[] = [];
  const media: InboundMedia[] = [];
  const quickReply = isObject(message.quick_reply) ? str(message.quick_reply.payload) : null;
  const text = withPayload(str(message.text), quickReply);
  if (text) lines.push(text);
  for (const attachment of asArray(message.attachments)) {
    if (!isObject(attachment)) continue;
    const type = str(attachment.type) ?? 'attachment';
    const payload = isObject(attachment.payload) ? attachment.payload : {};
    const url = str(payload.url);
    if ((type === 'audio' || type === 'image') && url && !payload.sticker_id) {
      media.push({ kind: type, source: { url }, mimeType: null });
      lines.push(type === 'audio' ? '[voice note]' : '[image]');
      continue;
    }
    const shown = url ?? str(payload.title) ?? '';
    lines.push(`[${type}]${shown ? ` ${shown}` : ''}`);
  }
  return { text: lines.join('\n').trim(), media };
}

/**
 * A WhatsApp Cloud `messages` change (WhatsApp Cloud API webhooks reference, "messages" field). Since 2026
 * a user with a username may come with a business-scoped user id (`messages[].from_user_id`,
 * `contacts[].user_id`, `contacts[].profile.username`) and no phone (`from`, `wa_id` absent).
 */
function parseWhatsAppChange(change: Json): InboundEvent[] {
  if (change.field !== 'messages' || !isObject(change.value)) return [];
  const value = change.value;
  const accountKey = isObject(value.metadata) ? str(value.metadata.phone_number_id) : null;
  if (!accountKey) return [];
  const contacts: { waId: string | null; userId: string | null; name: string | null; username: string | null }[] = [];
  for (const contact of asArray(value.contacts)) {
    if (!isObject(contact)) continue;
    const profile = isObject(contact.profile) ? contact.profile : {};
    contacts.push({ waId: str(contact.wa_id), userId: str(contact.user_id), name: str(profile.name), username: str(profile.username) });
  }
  const events: InboundEvent[] = [];
  for (const message of asArray(value.messages)) {
    if (!isObject(message)) continue;
    const phone = str(message.from);
    const contact = contacts.find((c) => (phone && c.waId === phone) || (str(message.from_user_id) && c.userId === str(message.from_user_id))) ??
      (contacts.length === 1 ? contacts[0] : undefined);
    const userId = str(message.from_user_id) ?? contact?.userId ?? null;
    const senderId = phone ?? contact?.waId ?? userId;
    const externalId = str(message.id);
    if (!senderId || !externalId) continue;
    const senderName = displayName(contact?.name ?? null, contact?.username ?? null);
    const seconds = Number(message.timestamp);
    const sentAt = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date();
    const sender = { channel: 'WHATSAPP' as const, accountKey, senderId, senderName, senderUserId: userId, externalId, sentAt };
    const type = str(message.type) ?? '';
    if (type === 'reaction') continue; // an emoji on an earlier message: nothing to answer.
    const parsed = whatsAppText(message);
    if (parsed) events.push({ kind: 'message', ...sender, text: parsed.text, ...(parsed.media ? { media: [parsed.media] } : {}) });
    else events.push({ kind: 'unsupported', ...sender, reason: unsupportedReason(message) });
  }
  for (const status of asArray(value.statuses)) {
    if (!isObject(status)) continue;
    const externalId = str(status.id);
    if (!externalId) continue;
    if (status.status === 'sent' || status.status === 'delivered' || status.status === 'read') {
      events.push({ kind: 'delivery-status', channel: 'WHATSAPP', accountKey, externalId, state: status.status });
      continue;
    }
    if (status.status !== 'failed') continue;
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

/** "Ana (@ana_b)", "@ana_b" or "Ana": a WhatsApp user who adopted a username is shown with it. */
function displayName(name: string | null, username: string | null): string | null {
  const handle = username ? `@${username.replace(/^@/, '')}` : null;
  if (name && handle) return `${name} (${handle})`;
  return name ?? handle;
}

function unsupportedReason(message: Json): string {
  const type = str(message.type) ?? 'unknown';
  const error = isObject(asArray(message.errors)[0]) ? (asArray(message.errors)[0] as Json) : null;
  const why = error ? (isObject(error.error_data) ? str(error.error_data.details) : null) ?? str(error.title) ?? str(error.message) : null;
  return why ? `${type}: ${why}` : type;
}

/**
 * Text of a WhatsApp message (WhatsApp Cloud API webhooks, messages object): text, captions, shared contact
 * cards and locations as readable lines, button and list replies with their payload/id; audio and images
 * also as media to fetch. null for a type with nothing to read (unsupported, unknown): the caller notes it.
 */
function whatsAppText(message: Json): { text: string; media?: InboundMedia } | null {
  const type = str(message.type) ?? '';
  const part = isObject(message[type]) ? (message[type] as Json) : {};
  switch (type) {
    case 'text': {
      const body = str(part.body);
      return body ? { text: body } : null;
    }
    case 'audio':
    case 'image': {
      const id = str(part.id);
      const caption = str(part.caption);
      const label = type === 'audio' ? (part.voice === true ? '[voice note]' : '[audio]') : '[image]';
      return {
        text: `${label}${caption ? ` ${caption}` : ''}`,
        ...(id ? { media: { kind: type, source: { mediaId: id }, mimeType: str(part.mime_type) } } : {}),
      };
    }
    case 'video':
    case 'document':
    case 'sticker': {
      const caption = str(part.caption) ?? str(part.filename);
      return { text: `[${type}]${caption ? ` ${caption}` : ''} (media ${str(part.id) ?? 'without id'}, not shown here)` };
    }
    case 'location': {
      const where = [str(part.name), str(part.address)].filter(Boolean).join(', ');
      const coordinates = `${String(part.latitude ?? '?')}, ${String(part.longitude ?? '?')}`;
      return { text: `[location] ${where ? `${where} ` : ''}(${coordinates})${str(part.url) ? ` ${str(part.url)}` : ''}` };
    }
    case 'contacts': {
      const lines = asArray(message.contacts).filter(isObject).map((card) => {
        const name = isObject(card.name) ? (str(card.name.formatted_name) ?? [str(card.name.first_name), str(card.name.last_name)].filter(Boolean).join(' ')) : '';
        const phones = asArray(card.phones).filter(isObject).map((p) => str(p.phone) ?? str(p.wa_id)).filter(Boolean);
        const emails = asArray(card.emails).filter(isObject).map((e) => str(e.email)).filter(Boolean);
        return `[contact] ${name || 'no name'}${phones.length ? `: ${phones.join(', ')}` : ''}${emails.length ? ` ${emails.join(', ')}` : ''}`;
      });
      return lines.length ? { text: lines.join('\n') } : null;
    }
    case 'button': {
      // A quick-reply button of a template: the text shown and the payload the business set.
      const text = withPayload(str(part.text), str(part.payload));
      return text ? { text } : null;
    }
    case 'interactive': {
      const reply = isObject(part.button_reply) ? part.button_reply : isObject(part.list_reply) ? part.list_reply : null;
      if (!reply) return null;
      const title = [str(reply.title), str(reply.description)].filter(Boolean).join(' - ');
      const text = withPayload(title || str(reply.id), title ? str(reply.id) : null);
      return text ? { text } : null;
    }
    default:
      return null;
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

/**
 * SMS Gateway for Android: `sms:received` (other events — sent, delivered, failed, ping — are skipped).
 * Payload (android-sms-gateway docs, features/webhooks; third-party-facts.md): since 2026-02-17 `sender` (the
 * prospect) and `recipient` (our SIM's number); the deprecated `phoneNumber` is read when `sender` is absent.
 * `payload.messageId` is a hash of the content and not unique: the event's `id` identifies the message.
 */
export function parseSmsGatewayEvent(event: unknown): InboundEvent[] {
  if (!isObject(event) || event.event !== 'sms:received' || !isObject(event.payload)) return [];
  const payload = event.payload;
  const accountKey = str(event.deviceId);
  const senderId = str(payload.sender) ?? str(payload.phoneNumber);
  const externalId = str(event.id);
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
