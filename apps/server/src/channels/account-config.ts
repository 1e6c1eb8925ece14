import type { ChannelType } from './types.ts';

/**
 * What a messaging account's page id and config must look like per channel (the mapping in types.ts,
 * docs/channels.md "Accounts"), checked when an admin saves them: a value the provider would refuse only at
 * the first send (an Account SID without its AC prefix makes the Twilio SDK throw before any request) is a
 * clear field error on the form instead of a reply that never leaves.
 */

/** Twilio Account SID: AC followed by 32 hexadecimal characters. */
export const TWILIO_ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
/** A phone number in E.164: +, country code, at most 15 digits. */
const E164 = /^\+[1-9]\d{1,14}$/;
/** Meta's object ids (phone_number_id, WABA id) are decimal numbers. */
const META_ID = /^\d{1,30}$/;

/** The page id's problem for this channel type, or null when it is fine. */
export function pageIdProblem(type: ChannelType, pageId: string): string | null {
  const value = pageId.trim();
  if (type === 'TWILIO' && !E164.test(value)) {
    return `Page id: a Twilio account's page id is its phone number in E.164 format, e.g. +15551234567 (got "${value.slice(0, 40)}").`;
  }
  if (type === 'WHATSAPP' && !META_ID.test(value)) {
    return `Page id: a WhatsApp account's page id is its phone number ID (digits only, WhatsApp Manager → API Setup), not the phone number itself (got "${value.slice(0, 40)}").`;
  }
  return null;
}

/** Every problem of a config object for this channel type, each naming its field; [] when it is fine. */
export function configProblems(type: ChannelType, config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const optionalString = (field: string): string | null => {
    const value = config[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      problems.push(`${field}: must be a text value.`);
      return null;
    }
    return value.trim();
  };
  switch (type) {
    case 'TWILIO': {
      const sid = optionalString('accountSid');
      if (sid !== null && !TWILIO_ACCOUNT_SID.test(sid)) {
        problems.push(`accountSid: a Twilio Account SID starts with AC followed by 32 hexadecimal characters (Twilio Console, Account Info); got "${sid.slice(0, 40)}".`);
      }
      break;
    }
    case 'WHATSAPP': {
      const waba = optionalString('wabaId');
      if (waba !== null && !META_ID.test(waba)) problems.push(`wabaId: the WhatsApp Business Account ID is digits only; got "${waba.slice(0, 40)}".`);
      const templates = config.templates;
      if (templates !== undefined && (templates === null || typeof templates !== 'object' || Array.isArray(templates))) {
        problems.push('templates: must be an object, e.g. {"outsideWindow":{"name":"follow_up","language":"en_US"}}.');
      } else if (templates) {
        const outside = (templates as Record<string, unknown>).outsideWindow as Record<string, unknown> | undefined;
        if (outside !== undefined && (!outside || typeof outside.name !== 'string' || typeof outside.language !== 'string')) {
          problems.push('templates.outsideWindow: needs a "name" and a "language", e.g. {"name":"follow_up","language":"en_US"}.');
        }
      }
      break;
    }
    case 'SMS_GATEWAY': {
      const baseUrl = optionalString('baseUrl');
      if (baseUrl !== null && !isHttpUrl(baseUrl)) problems.push(`baseUrl: must be an http(s) URL, e.g. https://api.sms-gate.app/3rdparty/v1; got "${baseUrl.slice(0, 80)}".`);
      optionalString('signingKey');
      break;
    }
    case 'INSTAGRAM': {
      const login = config.login;
      if (login !== undefined && login !== 'facebook' && login !== 'instagram') problems.push('login: must be "facebook" or "instagram".');
      break;
    }
    case 'FACEBOOK':
      break;
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
