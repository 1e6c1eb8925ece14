/**
 * Twilio Media Streams wire format (https://www.twilio.com/docs/voice/media-streams/websocket-messages).
 * Twilio sends `connected`, `start`, `media`, `mark`, `dtmf` and `stop`; we send `media`, `mark` and `clear`,
 * each with the streamSid. Audio is base64 μ-law at 8 kHz mono: 8 bytes per millisecond, 160 bytes per 20 ms.
 */
export interface TwilioStart {
  event: 'start';
  sequenceNumber?: string;
  streamSid: string;
  start: {
    streamSid: string;
    accountSid: string;
    callSid: string;
    tracks?: string[];
    customParameters?: Record<string, string>;
    mediaFormat?: { encoding: string; sampleRate: number; channels: number };
  };
}

export type TwilioInbound =
  | { event: 'connected'; protocol?: string; version?: string }
  | TwilioStart
  | { event: 'media'; streamSid?: string; media: { track?: string; chunk?: string; timestamp?: string; payload: string } }
  | { event: 'mark'; streamSid?: string; mark: { name: string } }
  | { event: 'dtmf'; streamSid?: string; dtmf: { digit: string } }
  | { event: 'stop'; streamSid?: string; stop?: { accountSid: string; callSid: string } };

/** μ-law at 8 kHz: one byte per sample, 8 samples per millisecond. */
export const MULAW_BYTES_PER_MS = 8;

/** Base64 text only (no quotes or backslashes), so it can be spliced into JSON text without escaping. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const isBase64 = (value: unknown): value is string => typeof value === 'string' && BASE64.test(value);

/** Bytes encoded by a padded base64 string, without decoding it. */
export function base64ByteLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

/*
 * The per-frame messages are built as text: the payload is checked base64 and the stream sid is Twilio's
 * `MZ…` id (checked at start), so neither needs escaping, and the hot path skips an object and a stringify.
 */
export const twilioMedia = (streamSid: string, payload: string) =>
  `{"event":"media","streamSid":"${streamSid}","media":{"payload":"${payload}"}}`;
export const twilioMark = (streamSid: string, name: string) => `{"event":"mark","streamSid":"${streamSid}","mark":{"name":"${name}"}}`;
export const twilioClear = (streamSid: string) => `{"event":"clear","streamSid":"${streamSid}"}`;
export const realtimeAppend = (payload: string) => `{"type":"input_audio_buffer.append","audio":"${payload}"}`;

/** Twilio's ids: two letters and 32 hex digits (MZ… streams, CA… calls, AC… accounts). */
export const isTwilioSid = (value: unknown, prefix: string): value is string =>
  typeof value === 'string' && new RegExp(`^${prefix}[0-9a-fA-F]{32}$`).test(value);
