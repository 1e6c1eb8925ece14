import { createHmac, timingSafeEqual } from 'node:crypto';
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

/** D2's realtime bridge: wss:// on an https PUBLIC_URL, ws:// on http (local development, tests). */
export function mediaStreamUrl(config: Pick<AppConfig, 'PUBLIC_URL'>): string {
  const url = new URL(config.PUBLIC_URL);
  return `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}/api/voice/media-stream`;
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
