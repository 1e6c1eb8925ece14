import OpenAI, { toFile } from 'openai';
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.ts';
import type { Actor } from '../context.ts';
import { AppError, askYourAdmin, unavailable } from './errors.ts';

/**
 * Speech to text through any OpenAI-compatible server (POST {OPENAI_BASE_URL}/audio/transcriptions with
 * model TRANSCRIBE_MODEL). Provider failures become 502 with the provider's own message, so the user can
 * tell "bad key" from "file too large".
 */
/** The sentence a user sees when no transcription provider is configured (also answered ahead of time below). */
export const TRANSCRIPTION_NOT_CONFIGURED =
  'Transcription is not configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server) on the server.';

/** What a team member reads instead: the server's settings are their admin's business (issue 24). */
export const TRANSCRIPTION_NOT_CONFIGURED_FOR_MEMBERS = askYourAdmin('Transcription');

/**
 * Whether Generate Transcript can work at all (issue 12 "honest actions"): the web disables the button with
 * this reason instead of offering a retry that cannot help. An ADMIN reads what to set, a member to ask.
 */
export function transcriptionAvailability(ctx: AppContext, actor: Actor): { available: boolean; reason: string | null } {
  if (ctx.config.OPENAI_API_KEY) return { available: true, reason: null };
  return { available: false, reason: actor.role === 'ADMIN' ? TRANSCRIPTION_NOT_CONFIGURED : TRANSCRIPTION_NOT_CONFIGURED_FOR_MEMBERS };
}

export async function transcribeAudio(ctx: AppContext, audio: Readable, fileName: string, mimeType: string): Promise<string> {
  const { OPENAI_API_KEY, OPENAI_BASE_URL, TRANSCRIBE_MODEL } = ctx.config;
  if (!OPENAI_API_KEY) {
    audio.destroy();
    throw unavailable(TRANSCRIPTION_NOT_CONFIGURED, 'TRANSCRIPTION_NOT_CONFIGURED', TRANSCRIPTION_NOT_CONFIGURED_FOR_MEMBERS);
  }
  const client = new OpenAI({ apiKey: OPENAI_API_KEY, baseURL: OPENAI_BASE_URL, maxRetries: 1, timeout: 10 * 60_000 });
  try {
    const result = await client.audio.transcriptions.create({
      file: await toFile(audio, fileName, { type: mimeType }),
      model: TRANSCRIBE_MODEL,
    });
    return result.text;
  } catch (err) {
    if (err instanceof OpenAI.APIConnectionError) {
      throw new AppError(502, 'TRANSCRIPTION_UNREACHABLE', 'Could not reach the transcription service. Please try again later.');
    }
    if (err instanceof OpenAI.APIError) {
      ctx.log.warn({ status: err.status, code: err.code, providerMessage: err.message }, 'transcription failed');
      // A credentials error carries part of the API key in its text: users get a sentence, the log the details.
      if (err.status === 401 || err.status === 403) {
        throw new AppError(502, 'TRANSCRIPTION_NOT_AUTHORIZED', 'The transcription service refused our credentials. An administrator needs to check OPENAI_API_KEY.');
      }
      throw new AppError(502, 'TRANSCRIPTION_FAILED', `The transcription service failed: ${err.message}`);
    }
    throw err;
  }
}
