import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { users } from './users.ts';
import { serialId, timestampTz, timestampNow, optionalRef } from './columns.ts';

/**
 * A person's request not to be contacted (issue 23, docs/compliance.md): STOP on a channel, a plain-language
 * opt-out, or a person's entry. Keyed by the contact address — the E.164 phone for SMS, WhatsApp and calls
 * (an SMS STOP also stops calls to the number), `<channel>:<account id>:<sender id>` for Instagram and
 * Messenger — so it holds for every account and every conversation with that address. A row is active until
 * cleared; clearing keeps the row (who, when, note) as the audit trail.
 */
export const doNotContact = pgTable(
  'do_not_contact',
  {
    id: serialId(),
    address: text().notNull(),
    /** Where the opt-out came from: sms, whatsapp, instagram, messenger, call, web, or all. */
    channel: text().notNull(),
    /** How it was set, in words: `keyword "STOP"`, `plain language`, `set by a person`. */
    how: text().notNull(),
    since: timestampNow(),
    clearedAt: timestampTz(),
    /** START/UNSTOP from the prospect (null) or the person who cleared it. */
    clearedByUserId: optionalRef(() => users.id),
    clearNote: text(),
    /**
     * An "all channels" opt-out (docs/compliance.md, `optOutScope: "all"`) is one row per address of the
     * person; the rows for the person's other addresses point to the row of the address the opt-out came
     * from, so START there (or a person's clear) ends them together.
     */
    originId: integer(),
  },
  (t) => [index('do_not_contact_address_idx').on(t.address), index('do_not_contact_origin_idx').on(t.originId)],
);

/**
 * Consent given or withdrawn for a channel (issue 23, docs/compliance.md): today the WhatsApp opt-in that a
 * business-initiated message outside the 24-hour window needs. Append-only — the newest row of an
 * (address, channel) is the current state, and the rows are the audit trail (who, when, how, note).
 */
export const consentRecords = pgTable(
  'consent_records',
  {
    id: serialId(),
    /** The same address as do_not_contact: E.164 phone for WhatsApp. */
    address: text().notNull(),
    channel: text().notNull(),
    granted: boolean().notNull(),
    /** Where it came from: `prospect wrote first`, `api`, `import`, `person`. */
    source: text().notNull(),
    note: text(),
    byUserId: optionalRef(() => users.id),
    createdAt: timestampNow(),
  },
  (t) => [index('consent_records_address_idx').on(t.address, t.channel, t.id)],
);
