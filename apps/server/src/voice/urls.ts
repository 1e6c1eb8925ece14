import { createHmac, timingSafeEqual } from 'node:crypto';
import { UUID_SOURCE } from '@sales-agent/shared/uuid';
import type { AppConfig } from '../config/env.ts';

/**
 * Every URL Twilio is given for a call (docs/voice.md). They are absolute, on PUBLIC_URL, because Twilio
 * signs the exact URL it requests and we verify over PUBLIC_URL + path (+ query).
 */
export function callbackUrls(config: Pick<AppConfig, 'PUBLIC_URL'>, uuid: string) {
  const base = `${config.PUBLIC_URL}/api/voice/calls/${uuid}`;
  return {
    twiml: `${base}/twiml`,
    status: `${base}/status`,
    recording: `${base}/recording`,
    amd: `${base}/amd`,
    /** The Gather action; `silences` counts the turns in a row in which the caller said nothing. */
    gather: (silences: number) => `${base}/gather?silences=${silences}`,
  };
}

/**
 * D2's realtime bridge: wss:// on an https PUBLIC_URL, ws:// on http (local development, tests), with the
 * call's binding as the last path segment. Twilio signs the stream URL (X-Twilio-Signature), so the binding is
 * covered by the signature too; Twilio's `<Stream url>` takes no query string, hence the path.
 */
export function mediaStreamUrl(config: Pick<AppConfig, 'PUBLIC_URL'>, binding: string): string {
  const url = new URL(config.PUBLIC_URL);
  return `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}/api/voice/media-stream/${binding}`;
}

/** How long a stream binding may wait for its stream: Twilio opens it right after reading the TwiML. */
export const STREAM_BINDING_TTL_SECONDS = 600;
const BINDING = new RegExp(`^(${UUID_SOURCE})\\.(CA[0-9a-fA-F]{32})\\.(\\d{1,12})\\.([A-Za-z0-9_-]{43})$`);

const bindingSignature = (config: Pick<AppConfig, 'APP_SECRET'>, body: string) =>
  createHmac('sha256', config.APP_SECRET).update(`voice-stream:${body}`).digest('base64url');

/**
 * The binding of a media stream to its call (issue 18 item 8): `{uuid}.{CallSid}.{expires}.{HMAC}`, signed
 * with APP_SECRET. Only the TwiML of that very call carries it, so a stream cannot name another call's
 * conversation, and a captured one stops working after STREAM_BINDING_TTL_SECONDS.
 */
export function streamBinding(config: Pick<AppConfig, 'APP_SECRET'>, conversationUuid: string, callSid: string, now = Date.now()): string {
  const body = `${conversationUuid.toLowerCase()}.${callSid}.${Math.floor(now / 1000) + STREAM_BINDING_TTL_SECONDS}`;
  return `${body}.${bindingSignature(config, body)}`;
}

/** The conversation uuid and CallSid a binding was issued for; null when forged, altered, malformed or expired. */
export function verifyStreamBinding(config: Pick<AppConfig, 'APP_SECRET'>, binding: unknown, now = Date.now()): { conversationUuid: string; callSid: string } | null {
  const match = typeof binding === 'string' ? BINDING.exec(binding) : null;
  if (!match) return null;
  const [, conversationUuid, callSid, expires, signature] = match;
  const expected = Buffer.from(bindingSignature(config, `${conversationUuid}.${callSid}.${expires}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  if (Number(expires) * 1000 < now) return null;
  return { conversationUuid, callSid };
}

/**
 * Speech audio served to Twilio's <Play>: Twilio fetches it without a session, so the URL carries an HMAC of
 * the storage key under APP_SECRET. Only keys this server signed can be fetched (other stored files, such as
 * call recordings, live in the same storage and must not be reachable here).
 */
export function speechAudioSignature(config: Pick<AppConfig, 'APP_SECRET'>, key: string): string {
  return createHmac('sha256', config.APP_SECRET).update(`voice-speech:${key}`).digest('base64url');
}

export function speechAudioUrl(config: Pick<AppConfig, 'PUBLIC_URL' | 'APP_SECRET'>, key: string): string {
  return `${config.PUBLIC_URL}/api/voice/speech/${speechAudioSignature(config, key)}/${key}`;
}

export function isSpeechAudioSignature(config: Pick<AppConfig, 'APP_SECRET'>, key: string, signature: string): boolean {
  const expected = Buffer.from(speechAudioSignature(config, key));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Our own streaming URL of a call's recording (authorized like the conversation); kept as recordingUrl. */
export const recordingPath = (uuid: string) => `/api/conversation/${uuid}/recording`;

/** Storage key of a call's recording: the conversation's uuid (random, one recording per call). */
export const recordingStorageKey = (uuid: string) => `${uuid}.mp3`;
