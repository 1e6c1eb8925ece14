import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { conversations, messagingAccounts } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { emitConversationChanged } from '../conversations/conversation-store.ts';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';
import { recordingStorage } from '../lib/recording-storage.ts';
import { removeCallRecording } from './call-recording-file.ts';
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
    const outcome = await storeRecordingUrl(ctx, call.account.id, call.conversation.id, recordingPath(call.conversation.uuid), durationSeconds);
    if (outcome === 'gone') {
      // The call was deleted (alone or with its account) while this downloaded: its delete found no recording
      // to remove, so the file just written would be left behind.
      await removeCallRecording(ctx, call.conversation.uuid);
      return;
    }
    emitConversationChanged(ctx, call.conversation);
  },
};

/**
 * Sets the call's recordingUrl if it is still there and has none: 'stored' (with the recording's cost and its
 * call.recording_ready webhook event, in one transaction), 'already' (an earlier run stored the same file) or
 * 'gone'. The account row is key-share locked first, so an account delete running at this
 * moment (it locks the row for update, then lists the recordings to remove) either has committed — the
 * conversation is gone — or waits for this commit and then finds the recordingUrl and removes the file itself.
 * A delete of the conversation alone is one statement that waits on this update and answers its recordingUrl.
 */
async function storeRecordingUrl(
  ctx: AppContext,
  accountId: number,
  conversationId: number,
  recordingUrl: string,
  durationSeconds: number,
): Promise<'stored' | 'already' | 'gone'> {
  return ctx.db.transaction(async (tx) => {
    const [account] = await tx.select({ id: messagingAccounts.id }).from(messagingAccounts).where(eq(messagingAccounts.id, accountId)).for('key share');
    if (!account) return 'gone';
    const updated = await tx
      .update(conversations)
      .set({ recordingUrl, recordingDuration: durationSeconds, updatedAt: new Date() })
      .where(and(eq(conversations.id, conversationId), isNull(conversations.recordingUrl)))
      .returning({ id: conversations.id });
    if (updated.length > 0) {
      await bookCallCost(ctx, conversationId, costOfRecording(callPrices(ctx.config), durationSeconds), 0, tx);
      // Twilio's recording arrives after the call's final status (call.ended): announced with it, in the same lane.
      await recordConversationEvent(tx, 'call.recording_ready', conversationId, {
        recording: { url: `${ctx.config.PUBLIC_URL}${recordingUrl}`, durationSeconds },
      });
      return 'stored';
    }
    const [still] = await tx.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, conversationId));
    return still ? 'already' : 'gone';
  });
}
