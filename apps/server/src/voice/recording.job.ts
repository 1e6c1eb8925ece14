import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { emitConversationChanged } from '../agent/conversation-store.ts';
import { recordingStorage } from '../modules/call-recordings/call-recordings.service.ts';
import { accountSidOf, loadCallByUuid } from './call-context.ts';
import { bookCallCost, callPrices, costOfRecording } from './call-costs.ts';
import { recordingPath, recordingStorageKey } from './urls.ts';

export const RECORDING_JOB = 'voice.recording';
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

const payload = z.object({
  conversationUuid: z.uuid(),
  /** Twilio's RecordingUrl (no extension). */
  recordingUrl: z.string().min(1).max(2000),
  durationSeconds: z.number().int().min(0),
});

/**
 * Where the recording is fetched: the path of Twilio's RecordingUrl on TWILIO_API_URL. The account's
 * credentials go only to the configured Twilio host, whatever host the callback named, and only for a
 * recording of this account.
 */
export function recordingDownloadUrl(apiUrl: string, recordingUrl: string, accountSid: string): URL | null {
  let given: URL;
  try {
    given = new URL(recordingUrl);
  } catch {
    return null;
  }
  const prefix = `/2010-04-01/Accounts/${accountSid}/Recordings/`;
  if (!given.pathname.startsWith(prefix) || !/^RE[0-9a-zA-Z]+$/.test(given.pathname.slice(prefix.length))) return null;
  const base = new URL(apiUrl);
  const target = new URL(`${base.pathname.replace(/\/$/, '')}${given.pathname}.mp3`, base);
  return target;
}

/**
 * Downloads a finished call recording (RecordingUrl + .mp3, HTTP Basic AccountSid:AuthToken) into our storage,
 * so it outlives Twilio's retention, and sets recordingUrl (our streaming URL) and recordingDuration. Safe to
 * run again: a conversation whose recordingUrl is set is done.
 */
export const recordingJob: JobDefinition<typeof payload> = {
  name: RECORDING_JOB,
  payload,
  async handler(ctx: AppContext, { conversationUuid, recordingUrl, durationSeconds }) {
    const call = await loadCallByUuid(ctx, conversationUuid);
    if (!call || call.conversation.recordingUrl) return;
    const accountSid = accountSidOf(call.account);
    const url = accountSid ? recordingDownloadUrl(ctx.config.TWILIO_API_URL!, recordingUrl, accountSid) : null;
    if (!url) {
      ctx.log.warn({ conversationId: call.conversation.id }, 'recording callback with a RecordingUrl of another account or host; not downloaded');
      return;
    }
    const response = await fetch(url, {
      headers: { authorization: `Basic ${Buffer.from(`${accountSid}:${call.account.accessToken}`).toString('base64')}` },
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      // Thrown: the runner retries with backoff (Twilio may still be processing a just-finished recording).
      throw new Error(`Twilio answered HTTP ${response.status} for the recording`);
    }
    const storage = recordingStorage(ctx);
    const temp = path.join(storage.incomingDir, `${randomUUID()}.part`);
    try {
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(temp));
      await storage.putFile(recordingStorageKey(call.conversation.uuid), temp, 'audio/mpeg');
    } finally {
      await rm(temp, { force: true });
    }
    const rows = await ctx.db
      .update(conversations)
      .set({ recordingUrl: recordingPath(call.conversation.uuid), recordingDuration: durationSeconds, updatedAt: new Date() })
      .where(sql`${conversations.id} = ${call.conversation.id} and ${conversations.recordingUrl} is null`)
      .returning({ id: conversations.id });
    if (rows.length > 0) await bookCallCost(ctx, call.conversation.id, costOfRecording(callPrices(ctx.config), durationSeconds));
    emitConversationChanged(ctx, call.conversation);
  },
};
