import twilio from 'twilio';
import type { AppContext } from '../../context.ts';

/**
 * Twilio signs the WebSocket upgrade like a webhook: X-Twilio-Signature over the stream URL (TwiML's
 * `wss://host/api/voice/media-stream`, no parameters) with the account's Auth Token. That URL is built from
 * PUBLIC_URL's host (voice/urls.ts mediaStreamUrl): wss on https, ws on http, then the path as requested.
 */
export function verifyStreamSignature(ctx: AppContext, authToken: string, signature: string | undefined, requestUrl: string): boolean {
  if (!signature) return false;
  const base = new URL(ctx.config.PUBLIC_URL);
  const url = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}${requestUrl}`;
  return twilio.validateRequest(authToken, signature, url, {});
}
