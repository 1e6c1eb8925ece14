import { and, desc, eq } from 'drizzle-orm';
import { consentRecords } from '../db/schema/index.ts';
import { conflict } from '../lib/errors.ts';
import type { Executor } from './conversation-store.ts';

/**
 * Consent records (issue 23, docs/compliance.md "WhatsApp opt-in"): WhatsApp lets a business start a
 * conversation (a template outside the 24-hour window) only with a person who opted in to hear from it.
 * The opt-in is recorded from the conversation (the prospect wrote first), from the API (`POST /api/leads`
 * with `whatsappOptIn`), from an ADMIN's CSV import (`POST /api/admin/compliance/consents/import`), or by a person with a note; an opt-out withdraws it. The newest
 * record of an address and channel is the current state; all of them are the audit trail.
 */
export type ConsentSource = 'prospect wrote first' | 'keyword START' | 'api' | 'import' | 'person' | 'opt-out';

export async function recordConsent(
  db: Executor,
  entry: { address: string; channel: string; granted: boolean; source: ConsentSource; note?: string | null; byUserId?: number | null },
): Promise<void> {
  await db.insert(consentRecords).values({ ...entry, note: entry.note ?? null, byUserId: entry.byUserId ?? null });
}

/** The newest consent record of an address on a channel, or null when none was ever recorded. */
export async function consentOf(db: Executor, address: string, channel: string): Promise<{ granted: boolean; source: string; createdAt: Date } | null> {
  const [row] = await db
    .select({ granted: consentRecords.granted, source: consentRecords.source, createdAt: consentRecords.createdAt })
    .from(consentRecords)
    .where(and(eq(consentRecords.address, address), eq(consentRecords.channel, channel)))
    .orderBy(desc(consentRecords.id))
    .limit(1);
  return row ?? null;
}

export async function hasOptIn(db: Executor, address: string, channel = 'whatsapp'): Promise<boolean> {
  return (await consentOf(db, address, channel))?.granted === true;
}

/** Records the prospect's own first message as their opt-in, unless a record (an opt-in or a withdrawal) exists. */
export async function recordOptInFromConversation(db: Executor, address: string, channel = 'whatsapp'): Promise<void> {
  if (!(await consentOf(db, address, channel))) await recordConsent(db, { address, channel, granted: true, source: 'prospect wrote first' });
}

export const NO_WHATSAPP_OPT_IN_MESSAGE =
  'WhatsApp allows a business to start a conversation only with a person who opted in, and no opt-in is recorded for this number. Record the opt-in (with a note on where it was given) or wait until the person writes to you.';

/** 409 NO_WHATSAPP_OPT_IN for a business-initiated WhatsApp message to someone without a recorded opt-in. */
export async function assertWhatsAppOptIn(db: Executor, address: string, action: string): Promise<void> {
  if (await hasOptIn(db, address)) return;
  throw conflict(`${action} is not allowed: ${NO_WHATSAPP_OPT_IN_MESSAGE}`, 'NO_WHATSAPP_OPT_IN');
}
