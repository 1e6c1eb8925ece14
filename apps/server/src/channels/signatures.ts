import { createHmac, timingSafeEqual } from 'node:crypto';
import twilio from 'twilio';

/**
 * Signature checks of every inbound provider request (DESIGN.md §7). Each runs over the exact bytes the
 * provider signed, before anything is parsed further or stored.
 */

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Meta: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`. Several secrets may be valid
 * (the Facebook app's and the Instagram-login app's); any match is enough.
 */
export function verifyMetaSignature(rawBody: Buffer, header: string | undefined, secrets: (string | undefined)[]): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = header.slice('sha256='.length).toLowerCase();
  return secrets.some((secret) => !!secret && safeEqual(createHmac('sha256', secret).update(rawBody).digest('hex'), given));
}

/**
 * Twilio: `X-Twilio-Signature = base64(HMAC-SHA1(auth token, full URL + sorted POST params))`, computed by
 * the official SDK's validator (which also accepts the URL with and without the port, as Twilio signs it).
 */
export function verifyTwilioSignature(authToken: string, header: string | undefined, url: string, params: Record<string, string>): boolean {
  if (!header) return false;
  return twilio.validateRequest(authToken, header, url, params);
}

/** SMS Gateway for Android signs the body followed by the X-Timestamp value; older than this is a replay. */
export const SMS_GATEWAY_MAX_AGE_SECONDS = 5 * 60;

export function verifySmsGatewaySignature(
  rawBody: Buffer,
  timestamp: string | undefined,
  header: string | undefined,
  signingKey: string,
  nowMs = Date.now(),
): 'ok' | 'bad-signature' | 'stale' {
  if (!timestamp || !header || !/^\d{1,12}$/.test(timestamp)) return 'bad-signature';
  const expected = createHmac('sha256', signingKey).update(rawBody).update(timestamp).digest('hex');
  if (!safeEqual(expected, header.toLowerCase())) return 'bad-signature';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SMS_GATEWAY_MAX_AGE_SECONDS) return 'stale';
  return 'ok';
}
