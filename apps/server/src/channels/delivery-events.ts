import type { InboundEvent } from './inbound-events.ts';

/**
 * Delivery reports of the SMS channels turned into delivery events (issue 24). Meta's and WhatsApp's are parsed
 * with their other webhook items in inbound-events.ts.
 */

/**
 * Twilio's words for the errors a status callback carries most (twilio.com/docs/api/errors); others are named
 * by their code.
 */
const TWILIO_DELIVERY_ERRORS: Record<string, string> = {
  '21610': 'the recipient has unsubscribed (replied STOP)',
  '30003': 'the phone is unreachable (switched off or out of coverage)',
  '30004': 'the message was blocked',
  '30005': 'the number is unknown or no longer exists',
  '30006': 'the number is a landline or its carrier cannot receive SMS',
  '30007': 'the carrier filtered the message',
  '30008': 'an unknown error at the carrier',
};

/**
 * A Twilio status callback for one of our SMS (form: MessageSid, MessageStatus, ErrorCode, From = our number,
 * To = the prospect; twilio.com/docs/messaging/guides/track-outbound-message-status). `queued`, `sending` and
 * `accepted` say nothing new (the send itself recorded "sent"); `undelivered` and `failed` carry ErrorCode.
 */
export function parseTwilioStatus(params: Record<string, string>): InboundEvent[] {
  const externalId = params.MessageSid ?? params.SmsSid;
  const accountKey = params.From;
  const status = params.MessageStatus ?? params.SmsStatus;
  if (!externalId || !accountKey || !status) return [];
  const base = { channel: 'TWILIO' as const, accountKey, externalId };
  if (status === 'sent' || status === 'delivered' || status === 'read') return [{ kind: 'delivery-status', ...base, state: status }];
  if (status !== 'undelivered' && status !== 'failed') return [];
  const code = params.ErrorCode?.trim() || null;
  const words = (code && TWILIO_DELIVERY_ERRORS[code]) ?? params.ErrorMessage?.trim() ?? (code ? `Twilio error ${code}` : 'no reason given');
  return [{ kind: 'send-failed', ...base, code, message: `Twilio could not deliver the SMS: ${words}.`, details: code ? `https://www.twilio.com/docs/api/errors/${code}` : null }];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * SMS Gateway for Android's reports on a message we sent (docs-web features/webhooks.md, 2026): `sms:sent`,
 * `sms:delivered`, `sms:failed` with `payload.messageId` = the id its send answered (what we stored), `reason`
 * on a failure, `sender` our SIM's number and `recipient` the prospect (older apps: `phoneNumber`). The device is
 * the account. Anything else (received, ping, cancelled, mms) is not a delivery report.
 */
export function parseSmsGatewayStatus(event: unknown): InboundEvent[] {
  if (!isObject(event) || !isObject(event.payload)) return [];
  const accountKey = text(event.deviceId);
  const externalId = text(event.payload.messageId);
  if (!accountKey || !externalId) return [];
  const base = { channel: 'SMS_GATEWAY' as const, accountKey, externalId };
  switch (event.event) {
    case 'sms:sent':
      return [{ kind: 'delivery-status', ...base, state: 'sent' }];
    case 'sms:delivered':
      return [{ kind: 'delivery-status', ...base, state: 'delivered' }];
    case 'sms:failed':
      return [{ kind: 'send-failed', ...base, code: null, message: `The phone could not send the SMS: ${text(event.payload.reason) ?? 'no reason given'}.`, details: null }];
    default:
      return [];
  }
}
