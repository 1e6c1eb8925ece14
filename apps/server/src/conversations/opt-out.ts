import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import { contacts, doNotContact, messagingAccounts, prospects } from '../db/schema/index.ts';
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

/**
 * A web chat's own address: a visitor has no number or handle, so an opt-out written in the chat holds for
 * that chat (its follow-ups and answers), not for a person (docs/compliance.md "Web chat").
 */
export const webChatAddress = (uuid: string) => `web:${uuid}`;

/** The prospect's address, or a web chat's own. */
export function addressOfLoaded(loaded: { prospect: LoadedConversation['prospect']; conversation: { uuid: string } }): string {
  const p = loaded.prospect;
  return p ? contactAddress(p.accountType, p.messagingAccountId, p.externalId) : webChatAddress(loaded.conversation.uuid);
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

/** An active opt-out in words: `keyword "STOP" on sms`, or `…, for every channel` for an all-channels one. */
export function describeOptOut(found: DoNotContact): string {
  const [channel, { how }] = Object.entries(found)[0];
  return channel === 'all' ? `${how}, for every channel` : `${how} on ${channel}`;
}

/** Refuses an action that would contact an opted-out address: 409 OPTED_OUT, in words. */
export async function assertMayContact(db: Executor, address: string | null, action: string): Promise<void> {
  const found = await doNotContactOf(db, address);
  if (!found) return;
  const { since } = Object.values(found)[0];
  throw conflict(
    `${action} is not allowed: this person opted out (${describeOptOut(found)}, ${since}). A person can clear the opt-out with a note on the conversation.`,
    'OPTED_OUT',
  );
}

/**
 * Whom an opt-out covers (docs/compliance.md): `address` — the number or handle it came from (an SMS STOP
 * also stops calls to the number; the default) — or `all` — every channel of the person (the contact).
 * The type's `config.optOutScope` wins over OPT_OUT_SCOPE.
 */
export type OptOutScope = 'address' | 'all';

/** One address an opt-out row was written for or cleared on, for the CRM DND write. */
export type OptOutRow = { address: string; channel: string };

/**
 * Records an opt-out; a second STOP while one is active adds nothing (the first keeps its date) and answers
 * []. With `personAddresses` (an all-channels opt-out) the row is kept as channel `all`, with one more row
 * for each of the person's other addresses pointing to it.
 */
export async function recordOptOut(db: Executor, address: string, channel: string, how: string, personAddresses: string[] = []): Promise<OptOutRow[]> {
  if (await isOptedOut(db, address)) return [];
  const all = personAddresses.length > 0;
  const [origin] = await db
    .insert(doNotContact)
    .values({ address, channel: all ? 'all' : channel, how: all ? `${how} on ${channel}` : how })
    .returning({ id: doNotContact.id, how: doNotContact.how });
  const written: OptOutRow[] = [{ address, channel: all ? 'all' : channel }];
  const others = [...new Set(personAddresses)].filter((a) => a !== address);
  if (!others.length) return written;
  const covered = new Set(
    (
      await db
        .select({ address: doNotContact.address })
        .from(doNotContact)
        .where(and(inArray(doNotContact.address, others), eq(doNotContact.channel, 'all'), isNull(doNotContact.clearedAt)))
    ).map((r) => r.address),
  );
  const rows = others.filter((a) => !covered.has(a)).map((a) => ({ address: a, channel: 'all', how: origin.how, originId: origin.id }));
  if (rows.length) await db.insert(doNotContact).values(rows);
  return [...written, ...rows.map((r) => ({ address: r.address, channel: 'all' }))];
}

/**
 * Clears every active opt-out of an address — the prospect's START (no user) or a person with a note — and
 * with it the other rows of an all-channels opt-out it belongs to. Answers what was cleared ([]: nothing).
 */
export async function clearOptOut(db: Executor, address: string, by: { userId: number | null; note: string }): Promise<OptOutRow[]> {
  const active = await db
    .select({ id: doNotContact.id, originId: doNotContact.originId })
    .from(doNotContact)
    .where(and(eq(doNotContact.address, address), isNull(doNotContact.clearedAt)));
  if (!active.length) return [];
  const roots = [...new Set(active.map((r) => r.originId ?? r.id))];
  return db
    .update(doNotContact)
    .set({ clearedAt: new Date(), clearedByUserId: by.userId, clearNote: by.note })
    .where(
      and(
        isNull(doNotContact.clearedAt),
        or(eq(doNotContact.address, address), inArray(doNotContact.id, roots), inArray(doNotContact.originId, roots)),
      ),
    )
    .returning({ address: doNotContact.address, channel: doNotContact.channel });
}

/**
 * Every address of the person behind a prospect, for an all-channels opt-out: the handles of the prospect's
 * contact (issue 24's contacts; phone prospects of one number share one) and of any contact with the same
 * phone, the contacts' phone numbers (so calls are covered), and the address itself.
 */
export async function addressesOfPerson(db: Executor, address: string, prospectId: number | null): Promise<string[]> {
  const phone = phoneAddress(address.includes(':') ? '' : address);
  const contactIds = new Set<number>();
  if (prospectId !== null) {
    const [p] = await db.select({ contactId: prospects.contactId }).from(prospects).where(eq(prospects.id, prospectId));
    if (p?.contactId != null) contactIds.add(p.contactId);
  }
  if (phone) {
    for (const c of await db.select({ id: contacts.id }).from(contacts).where(inArray(contacts.phone, [phone, phone.slice(1)]))) contactIds.add(c.id);
  }
  const found = new Set([address]);
  if (!contactIds.size) return [...found];
  const ids = [...contactIds];
  const handles = await db
    .select({ externalId: prospects.externalId, accountId: prospects.messagingAccountId, type: messagingAccounts.type })
    .from(prospects)
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(inArray(prospects.contactId, ids));
  for (const h of handles) found.add(contactAddress(h.type, h.accountId, h.externalId));
  for (const c of await db.select({ phone: contacts.phone }).from(contacts).where(inArray(contacts.id, ids))) {
    const p = c.phone ? phoneAddress(c.phone) : null;
    if (p) found.add(p);
  }
  return [...found];
}

/** The one confirmation each gets (CTIA: one message, no marketing in it). */
export const OPT_OUT_CONFIRMATION = "You're unsubscribed and won't get further messages from us. Reply START to subscribe again.";
export const RESUBSCRIBE_CONFIRMATION = "You're subscribed again. Reply STOP at any time to unsubscribe.";
/** The web chat's: the visitor sees it in the chat; nothing else is sent to them there afterwards. */
export const WEB_OPT_OUT_CONFIRMATION = "Understood: we won't send you further messages in this chat. Write START if you want to continue.";
export const WEB_RESUBSCRIBE_CONFIRMATION = 'Welcome back: we will answer you here again.';

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
