import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { OPERATOR_NOTES } from '../conversations/operator-notes.ts';
import { messages } from '../db/schema/index.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { newStorageKey } from '../lib/storage.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import { transcribeAudio } from '../lib/transcription.ts';
import type { LiveAccount } from './accounts.ts';
import { endpointsOf } from './accounts.ts';
import type { InboundMedia } from './inbound-events.ts';
import { SEND_TIMEOUT_MS } from './senders/errors.ts';

/** OpenAI's transcription endpoint takes files up to 25 MB; WhatsApp's own limit for audio is 16 MB. */
const MAX_MEDIA_BYTES = 25 * 1024 * 1024;

/** What became of a voice note or picture: stored by us (key), and for audio its transcript when there is one. */
export interface ReceivedMedia {
  kind: InboundMedia['kind'];
  key: string | null;
  mimeType: string | null;
  transcript: string | null;
  /** Why a person is needed (no speech-to-text provider, download or transcription failed), else null. */
  problem: string | null;
}

const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'video/mp4': 'mp4',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/**
 * Fetches one inbound voice note or picture with the account's token, keeps it in our storage (lib/storage.ts:
 * provider URLs expire, so the conversation view never hot-links them) and, for audio, transcribes it with
 * TRANSCRIBE_MODEL on OPENAI_BASE_URL (the OpenAI SDK's audio.transcriptions). Never throws: a failure is
 * returned as `problem`, which sends the conversation to a person instead of losing the message.
 *  - WhatsApp Cloud: `GET /{version}/{media-id}` (Bearer) → `{url, mime_type}`, then `GET url` with the same
 *    Bearer token (WhatsApp Cloud API, Media reference "Retrieve media URL" / "Download media").
 *  - Instagram/Messenger: the attachment's `payload.url` (a signed CDN URL that expires).
 */
export async function receiveInboundMedia(ctx: AppContext, account: LiveAccount, media: InboundMedia): Promise<ReceivedMedia> {
  const kind = media.kind;
  let key: string | null = null;
  let mimeType = media.mimeType;
  let bytes: Buffer;
  try {
    const fetched = await downloadMedia(ctx, account, media);
    bytes = fetched.bytes;
    mimeType = baseType(fetched.mimeType ?? mimeType) ?? (kind === 'audio' ? 'audio/ogg' : 'image/jpeg');
    key = newStorageKey(EXTENSIONS[mimeType] ?? (kind === 'audio' ? 'ogg' : 'jpg'));
    const storage = recordingStorage(ctx);
    const temp = path.join(storage.incomingDir, `${randomUUID()}.part`);
    await writeFile(temp, bytes);
    try {
      await storage.putFile(key, temp, mimeType);
    } finally {
      await rm(temp, { force: true });
    }
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    ctx.log.warn({ channel: account.type, accountId: account.id, kind, reason }, 'inbound media could not be fetched');
    return { kind, key: null, mimeType, transcript: null, problem: `The ${kind === 'audio' ? 'voice note' : 'picture'} could not be fetched from ${channelName(account.type)}: ${reason}` };
  }
  if (kind !== 'audio') return { kind, key, mimeType, transcript: null, problem: null };
  if (!ctx.config.OPENAI_API_KEY) {
    return { kind, key, mimeType, transcript: null, problem: OPERATOR_NOTES.voiceNoteNoTranscription.admin };
  }
  try {
    const storage = recordingStorage(ctx);
    const text = (await transcribeAudio(ctx, await storage.read(key), key, mimeType)).trim();
    if (!text) return { kind, key, mimeType, transcript: null, problem: 'The voice note was transcribed as silence: a person needs to listen to it.' };
    return { kind, key, mimeType, transcript: text, problem: null };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind, key, mimeType, transcript: null, problem: `The voice note could not be transcribed: ${reason}` };
  }
}

function channelName(type: LiveAccount['type']): string {
  return type === 'WHATSAPP' ? 'WhatsApp' : type === 'INSTAGRAM' ? 'Instagram' : type === 'FACEBOOK' ? 'Messenger' : type;
}

const baseType = (value: string | null | undefined) => (value ? value.split(';')[0].trim().toLowerCase() || null : null);

async function downloadMedia(ctx: AppContext, account: LiveAccount, media: InboundMedia): Promise<{ bytes: Buffer; mimeType: string | null }> {
  const endpoints = endpointsOf(ctx);
  if ('mediaId' in media.source) {
    const lookup = `${endpoints.META_GRAPH_URL.replace(/\/+$/, '')}/${endpoints.META_GRAPH_VERSION}/${encodeURIComponent(media.source.mediaId)}`;
    const info = (await fetchBytes(lookup, account.accessToken)).bytes;
    let parsed: { url?: unknown; mime_type?: unknown };
    try {
      parsed = JSON.parse(info.toString('utf8')) as typeof parsed;
    } catch {
      throw new Error('the media lookup answered no JSON');
    }
    if (typeof parsed.url !== 'string') throw new Error('the media lookup answered no url');
    const file = await fetchBytes(parsed.url, account.accessToken);
    return { bytes: file.bytes, mimeType: typeof parsed.mime_type === 'string' ? parsed.mime_type : file.mimeType };
  }
  // Instagram/Messenger: the URL comes in Meta's signed payload; the token goes only to Meta's own hosts.
  const url = media.source.url;
  const host = safeHost(url);
  const graphHost = safeHost(endpoints.META_GRAPH_URL);
  const meta = host !== null && (host === graphHost || /(^|\.)(fbsbx|facebook|fbcdn|cdninstagram|instagram)\.(com|net)$/.test(host));
  return fetchBytes(url, meta ? account.accessToken : null);
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

async function fetchBytes(url: string, token: string | null): Promise<{ bytes: Buffer; mimeType: string | null }> {
  if (!/^https?:\/\//.test(url)) throw new Error('the media URL is not http(s)');
  let res: Response;
  try {
    res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(SEND_TIMEOUT_MS * 3) });
  } catch (err) {
    throw new Error(`could not connect (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_MEDIA_BYTES) {
    await res.body?.cancel();
    throw new Error(`the file is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`);
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length > MAX_MEDIA_BYTES) throw new Error(`the file is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`);
  return { bytes, mimeType: res.headers.get('content-type') };
}

/** The stored media of message `messageId` of the conversation (key and type), or a 404 AppError. */
export async function findStoredMedia(ctx: AppContext, conversationId: number, messageId: number) {
  const [row] = await ctx.db
    .select({ key: messages.mediaKey, type: messages.mediaType })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.conversationId, conversationId)))
    .limit(1);
  if (!row?.key) throw notFound('This message has no stored media.', 'MEDIA_NOT_FOUND');
  return { key: row.key, type: row.type };
}

/** Serving a stored media file of a message: its bytes and type, or a 404 AppError. */
export async function readStoredMedia(ctx: AppContext, key: string) {
  const storage = recordingStorage(ctx);
  const size = await storage.size(key);
  if (size === null) throw new AppError(404, 'MEDIA_FILE_MISSING', 'The media file is missing from storage.');
  return { size, stream: await storage.read(key) };
}

