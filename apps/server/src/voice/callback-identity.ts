import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { webhookInbox } from '../db/schema/index.ts';

/** webhook_inbox source of the voice callbacks' identities (payload `{}`: nothing of the call is kept). */
export const VOICE_CALLBACK_SOURCE = 'twilio-voice';

/**
 * The identity of one signed Twilio voice callback (issue 29): the CallSid and a digest of exactly what
 * X-Twilio-Signature covers — the full URL (path and query, e.g. `silences`) and every form parameter sorted
 * by name (SpeechResult and Confidence of a <Gather>, CallStatus and SequenceNumber of a status callback,
 * RecordingSid and RecordingStatus of a recording callback). Twilio's retry of a request is byte for byte the
 * same request, and a replayed capture cannot change a byte without breaking the signature, so both have the
 * same identity; two different events never do. (Twilio also sends `I-Twilio-Idempotency-Token` on retries,
 * but headers are not signed, so a replay could vary it: the signed content is the key.)
 */
export function callbackIdentity(url: string, form: Record<string, string>): string {
  const hash = createHash('sha256').update(url);
  for (const name of Object.keys(form).sort()) hash.update(`\n${name}=${form[name]}`);
  return `${form.CallSid ?? '-'}:${hash.digest('base64url')}`;
}

/**
 * Claims a callback's identity (one row in webhook_inbox, unique on source + external id, so every instance
 * agrees). `fresh` false: the same request was handled before (a retry or a replay) and must change nothing
 * again. `release` gives the identity back when handling failed, so Twilio's retry is handled in full.
 */
export async function claimCallback(ctx: AppContext, identity: string): Promise<{ fresh: boolean; release: () => Promise<void> }> {
  const claimed = await ctx.db
    .insert(webhookInbox)
    .values({ source: VOICE_CALLBACK_SOURCE, externalId: identity, payload: {}, processedAt: new Date() })
    .onConflictDoNothing()
    .returning({ id: webhookInbox.id });
  const release = async () => {
    await ctx.db.delete(webhookInbox).where(and(eq(webhookInbox.source, VOICE_CALLBACK_SOURCE), eq(webhookInbox.externalId, identity)));
  };
  return { fresh: claimed.length > 0, release };
}
