import type { AppConfig } from '../config/env.ts';
import { escapeXml } from '../lib/xml.ts';

/**
 * Azure AI Speech text to speech over its REST API (third-party-facts.md "Azure Text to Speech"):
 * `POST {endpoint}` with the subscription key, SSML in, audio bytes out. Plain fetch: there is no official
 * Node SDK for this REST call worth its weight.
 */

/** MP3 plays in Twilio's <Play>; 16 kHz is above what a phone line carries. */
export const TTS_OUTPUT_FORMAT = 'audio-16khz-32kbitrate-mono-mp3';
const TTS_TIMEOUT_MS = 10_000;

export interface TtsVoice {
  /** Azure voice name, e.g. en-US-JennyNeural. */
  name: string;
  /** xml:lang of the SSML, e.g. en-US. */
  language: string;
}

export const DEFAULT_TTS_VOICE: TtsVoice = { name: 'en-US-JennyNeural', language: 'en-US' };

/** The endpoint, or null when Azure is not configured (the classic pipeline then uses Twilio's <Say>). */
export function azureTtsEndpoint(config: Pick<AppConfig, 'AZURE_TTS_KEY' | 'AZURE_TTS_REGION' | 'AZURE_TTS_URL'>): string | null {
  if (!config.AZURE_TTS_KEY) return null;
  if (config.AZURE_TTS_URL) return config.AZURE_TTS_URL;
  if (config.AZURE_TTS_REGION) return `https://${config.AZURE_TTS_REGION}.tts.speech.microsoft.com/cognitiveservices/v1`;
  return null;
}

export function ssmlFor(text: string, voice: TtsVoice): string {
  return (
    `<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="${escapeXml(voice.language)}">` +
    `<voice name="${escapeXml(voice.name)}">${escapeXml(text)}</voice></speak>`
  );
}

/** Azure refused or could not be reached; the message never contains the key. */
export class TtsError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'TtsError';
  }
}

export async function synthesizeSpeech(endpoint: string, key: string, text: string, voice: TtsVoice): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Ocp-Apim-Subscription-Key': key,
        'Content-Type': 'application/ssml+xml',
        'X-Microsoft-OutputFormat': TTS_OUTPUT_FORMAT,
        'User-Agent': 'sales-agent',
      },
      body: ssmlFor(text, voice),
      signal: AbortSignal.timeout(TTS_TIMEOUT_MS),
    });
  } catch (err) {
    throw new TtsError(`Azure text to speech could not be reached: ${(err as Error).message}`, null);
  }
  if (!response.ok) {
    // Azure answers errors with an empty body or a short text; only the status is worth keeping.
    await response.body?.cancel();
    throw new TtsError(`Azure text to speech answered HTTP ${response.status}.`, response.status);
  }
  const audio = Buffer.from(await response.arrayBuffer());
  if (audio.length === 0) throw new TtsError('Azure text to speech answered no audio.', response.status);
  return audio;
}
