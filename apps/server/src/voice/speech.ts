import { createHash, randomUUID } from 'node:crypto';
import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_AGENT_PREFIX } from '@sales-agent/shared/agent';
import { DEFAULT_CALL_DISCLOSURE, DEFAULT_RECORDING_NOTICE, readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../context.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import type { CallContext } from './call-context.ts';
import { bookCallCost, callPrices, costOfTts } from './call-costs.ts';
import { azureTtsEndpoint, DEFAULT_TTS_VOICE, synthesizeSpeech, TTS_OUTPUT_FORMAT, TtsError, type TtsVoice } from './azure-tts.ts';
import { speechAudioUrl } from './urls.ts';

/** How a line reaches the caller: Azure audio by <Play>, or Twilio's own <Say> when Azure is not configured. */
export type Utterance = { play: string } | { say: string; language: string };

/** An Azure voice name: language-REGION-Name, e.g. en-US-JennyNeural, en-US-AvaMultilingualNeural. */
const AZURE_VOICE = /^([a-z]{2,3}-[A-Z]{2,4})(?:-[A-Za-z]+)?-[A-Za-z0-9]+$/;

/** The classic pipeline's voice (config `voice.azureVoice` or an Azure-shaped `voice.name`, docs/voice.md) and `voice.voicemailMessage`. */
export function voiceSettingsOf(typeConfig: string | null | undefined): { tts: TtsVoice; voicemailMessage: string | null } {
  const voice = (readConversationTypeConfig(typeConfig).voice ?? {}) as { name?: string; language?: string; azureVoice?: string; voicemailMessage?: string };
  // voice.name may also name an OpenAI realtime voice (alloy, marin …): only an Azure-shaped name is used here.
  const candidates = [voice.azureVoice, voice.name].filter((v): v is string => typeof v === 'string' && AZURE_VOICE.test(v));
  const name = candidates[0] ?? DEFAULT_TTS_VOICE.name;
  const language = voice.language ?? AZURE_VOICE.exec(name)?.[1] ?? DEFAULT_TTS_VOICE.language;
  const voicemail = voice.voicemailMessage?.trim() || null;
  return { tts: { name, language }, voicemailMessage: voicemail };
}

/**
 * The notices said at the start of a call, before the agent's first words (docs/compliance.md "Calls"): the
 * AI disclosure and the recording notice, each the type's `voice.disclosure` / `voice.recordingNotice`, a
 * default, or nothing when set to false. Said by Twilio's <Say> outside any <Gather>, so they cannot be
 * talked over or skipped, in the same words on the realtime and the classic path.
 */
export function callNotices(typeConfig: string | null | undefined): Utterance[] {
  const voice = (readConversationTypeConfig(typeConfig).voice ?? {}) as { disclosure?: string | false; recordingNotice?: string | false };
  const { tts } = voiceSettingsOf(typeConfig);
  const text = [voice.disclosure ?? DEFAULT_CALL_DISCLOSURE, voice.recordingNotice ?? DEFAULT_RECORDING_NOTICE].filter((t): t is string => typeof t === 'string');
  return text.length ? [{ say: text.join(' '), language: tts.language }] : [];
}

/** What is spoken of an agent message: the offline demo agent's label is for screens, not for ears. */
export function spokenText(message: string): string {
  return (message.startsWith(DEMO_AGENT_PREFIX) ? message.slice(DEMO_AGENT_PREFIX.length) : message).trim();
}

/**
 * The same text in the same voice is the same audio: its storage key is derived from both (a uuid-shaped hash,
 * as storage keys must be), so an opening line or a reprompt is synthesized (and billed) once.
 */
function speechKey(text: string, voice: TtsVoice): string {
  const hex = createHash('sha256').update(`${voice.name}\n${voice.language}\n${TTS_OUTPUT_FORMAT}\n${text}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}.mp3`;
}

/**
 * Turns a line into something Twilio can speak. With Azure configured the audio is synthesized (once per
 * text and voice), stored, and played from our own signed URL; the characters are booked on the call. If
 * Azure fails the line is still spoken, by <Say>: a caller hears a different voice rather than silence.
 */
export async function utter(ctx: AppContext, call: CallContext, text: string): Promise<Utterance> {
  const { tts } = voiceSettingsOf(call.type?.config);
  const line = spokenText(text);
  const endpoint = azureTtsEndpoint(ctx.config);
  if (!endpoint) return { say: line, language: tts.language };
  const storage = recordingStorage(ctx);
  const key = speechKey(line, tts);
  try {
    if ((await storage.size(key)) === null) {
      const audio = await synthesizeSpeech(endpoint, ctx.config.AZURE_TTS_KEY!, line, tts);
      const temp = path.join(storage.incomingDir, `${randomUUID()}.part`);
      try {
        await writeFile(temp, audio);
        await storage.putFile(key, temp, 'audio/mpeg');
      } finally {
        await rm(temp, { force: true });
      }
      await bookCallCost(ctx, call.conversation.id, costOfTts(callPrices(ctx.config), line.length), line.length);
    }
    return { play: speechAudioUrl(ctx.config, key) };
  } catch (err) {
    const reason = err instanceof TtsError ? err.message : 'storing the audio failed';
    ctx.log.warn({ conversationId: call.conversation.id, reason, err: err instanceof TtsError ? undefined : err }, 'text to speech failed; using <Say>');
    return { say: line, language: tts.language };
  }
}
