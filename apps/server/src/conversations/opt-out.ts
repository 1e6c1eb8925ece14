import { and, eq, isNull } from 'drizzle-orm';
import { doNotContact } from '../db/schema/index.ts';
import { conflict } from '../lib/errors.ts';
import type { Executor, LoadedConversation } from './conversation-store.ts';

/**
 * Opt-out and re-subscribe (issue 23, docs/compliance.md). A prospect who writes STOP (or says so in plain
 * words) is not contacted again by anything automated — agent reply, follow-up, call, campaign — until they
 * write START or a person clears the flag with a note. The check is by contact address, so an SMS STOP
 * also stops calls to that number from any account.
 */

/** The carrier keywords (CTIA / Twilio Advanced Opt-Out): the whole message, any case, trailing punctuation. */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL', 'OPTOUT', 'REVOKE']);

/**
 * Plain-language opt-outs. Matched on the prospect's words before the agent drafts anything, so no LLM
 * (or no LLM at all, in demo mode) can talk past them; each pattern needs a "me"/"us" object or a list
 * word, so "stop by tomorrow" or "don't call it a deal" are not opt-outs.
 */
const PLAIN_OPT_OUT = [
  /\b(?:stop|quit|cease)\s+(?:texting|messaging|contacting|calling|emailing|spamming|writing(?:\s+to)?)\s+(?:me|us)\b/i,
  /\b(?:don'?t|do\s+not|never)\s+(?:text|message|contact|call|email|write(?:\s+to)?)\s+(?:me|us)\b/i,
  /\b(?:remove|take)\s+me\s+(?:off|from)\s+(?:your|the|this)\s+(?:list|contacts|database)/i,
  /\b(?:unsubscribe|opt\s*-?\s*out)\s+(?:me\b|from\b)/i,
  /\bleave\s+me\s+alone\b/i,
  /\bno\s+more\s+(?:texts|messages|calls)\b/i,
];

export type OptOutIntent = { kind: 'stop'; how: string } | { kind: 'start'; how: string } | null;

/** What the prospect's message asks for: to stop, to start again, or neither. */
export function optOutIntent(text: string): OptOutIntent {
  const word = text.trim().replace(/[\s.!]+$/u, '').toUpperCase();
  if (STOP_WORDS.has(word)) return { kind: 'stop', how: `keyword "${word}"` };
  if (word === 'START' || word === 'UNSTOP') return { kind: 'start', how: `keyword "${word}"` };
  if (PLAIN_OPT_OUT.some((pattern) => pattern.test(text))) return { kind: 'stop', how: 'plain-language opt-out' };
  return null;
}

const CHANNEL_OF_ACCOUNT: Record<string, string> = {
  SMS_GATEWAY: 'sms',
  TWILIO: 'sms',
  WHATSAPP: 'whatsapp',
  INSTAGRAM: 'instagram',
  FACEBOOK: 'messenger',
};

/** The channel word of a messaging account type, as shown in `doNotContact`. */
export const channelOfAccount = (accountType: string) => CHANNEL_OF_ACCOUNT[accountType] ?? accountType.toLowerCase();

/**
 * The address an opt-out is kept under: the phone in E.164 for phone channels (WhatsApp sends it without
 * the plus), else the channel's scoped id, which only means something on its own account.
 */
export function contactAddress(accountType: string, accountId: number, externalId: string): string {
  const channel = channelOfAccount(accountType);
  if (channel === 'sms' || channel === 'whatsapp') return phoneAddress(externalId) ?? `${channel}:${accountId}:${externalId}`;
  return `${channel}:${accountId}:${externalId}`;
}

/** `+<digits>` for something that looks like a phone number, else null (a WhatsApp BSUID, say). */
export function phoneAddress(value: string): string | null {
  const digits = value.replace(/[\s().-]/g, '');
  return /^\+?[1-9]\d{6,14}$/.test(digits) ? `+${digits.replace(/^\+/, '')}` : null;
}

/** The prospect's address, or null for a web chat (no prospect). */
export function addressOfLoaded(loaded: Pick<LoadedConversation, 'prospect'>): string | null {
  const p = loaded.prospect;
  return p ? contactAddress(p.accountType, p.messagingAccountId, p.externalId) : null;
}

export type DoNotContact = Record<string, { since: string; how: string }>;

/** The active opt-outs of an address, by the channel they came from; null when the address may be contacted. */
export async function doNotContactOf(db: Executor, address: string | null): Promise<DoNotContact | null> {
  if (!address) return null;
  const rows = await db
    .select({ channel: doNotContact.channel, how: doNotContact.how, since: doNotContact.since })
    .from(doNotContact)
    .where(and(eq(doNotContact.address, address), isNull(doNotContact.clearedAt)))
    .orderBy(doNotContact.id);
  if (!rows.length) return null;
  return Object.fromEntries(rows.map((r) => [r.channel, { since: r.since.toISOString(), how: r.how }]));
}

export async function isOptedOut(db: Executor, address: string | null): Promise<boolean> {
  return (await doNotContactOf(db, address)) !== null;
}

/** Refuses an action that would contact an opted-out address: 409 OPTED_OUT, in words. */
export async function assertMayContact(db: Executor, address: string | null, action: string): Promise<void> {
  const found = await doNotContactOf(db, address);
  if (!found) return;
  const [channel, { since, how }] = Object.entries(found)[0];
  throw conflict(
    `${action} is not allowed: this person opted out (${how} on ${channel}, ${since}). A person can clear the opt-out with a note on the conversation.`,
    'OPTED_OUT',
  );
}

/** Records an opt-out; a second STOP while one is active adds nothing (the first keeps its date). */
export async function recordOptOut(db: Executor, address: string, channel: string, how: string): Promise<boolean> {
  if (await isOptedOut(db, address)) return false;
  await db.insert(doNotContact).values({ address, channel, how });
  return true;
}

/** Clears every active opt-out of an address: the prospect's START (no user) or a person with a note. */
export async function clearOptOut(db: Executor, address: string, by: { userId: number | null; note: string }): Promise<boolean> {
  const cleared = await db
    .update(doNotContact)
    .set({ clearedAt: new Date(), clearedByUserId: by.userId, clearNote: by.note })
    .where(and(eq(doNotContact.address, address), isNull(doNotContact.clearedAt)))
    .returning({ id: doNotContact.id });
  return cleared.length > 0;
}

/** The one confirmation each gets (CTIA: one message, no marketing in it). */
export const OPT_OUT_CONFIRMATION = "You're unsubscribed and won't get further messages from us. Reply START to subscribe again.";
export const RESUBSCRIBE_CONFIRMATION = "You're subscribed again. Reply STOP at any time to unsubscribe.";

/** The job that writes an opt-out (or its end) to the GoHighLevel contact's DND (modules/crm/crm-dnd.job.ts). */
export const CRM_DND_JOB = 'crm.dnd';

/**
 * Queues the CRM DND write in the caller's transaction, so it commits with the opt-out. Only enqueues by
 * name, as reportConversationOutcome does: conversations/ imports nothing from modules/.
 */
export async function reportOptOutToCrm(
  jobs: { enqueue: (name: typeof CRM_DND_JOB, payload: { address: string; channel: string; on: boolean }, options: { executor: Executor; maxAttempts: number }) => Promise<unknown> },
  executor: Executor,
  change: { address: string; channel: string; on: boolean },
): Promise<void> {
  await jobs.enqueue(CRM_DND_JOB, change, { executor, maxAttempts: 8 });
}
