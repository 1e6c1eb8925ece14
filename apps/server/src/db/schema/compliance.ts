import { index, pgTable, text } from 'drizzle-orm/pg-core';
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
  },
  (t) => [index('do_not_contact_address_idx').on(t.address)],
);
