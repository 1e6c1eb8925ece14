import type { AccountType } from './enums.ts';

/** Channels whose sender id is the prospect's phone number (issue 24). */
export const PHONE_CHANNELS: readonly AccountType[] = ['WHATSAPP', 'TWILIO', 'SMS_GATEWAY'];

/** The phone number a phone-keyed channel's sender id is, in E.164 (WhatsApp's wa_id comes without +); else null. */
export function phoneOf(type: AccountType, externalId: string): string | null {
  if (!PHONE_CHANNELS.includes(type)) return null;
  const digits = externalId.replace(/[^\d]/g, '');
  if (digits.length < 5) return null;
  return `+${digits}`;
}
