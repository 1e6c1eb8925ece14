import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { serialId, timestampNow } from './columns.ts';

/**
 * A person across conversations and channels (issue 24, docs/workspace.md): the prospects (handles) that
 * point here are the same person. Created when a prospect is first shown; phone from a phone-keyed channel.
 */
export const contacts = pgTable(
  'contacts',
  {
    id: serialId(),
    name: text(),
    /** E.164 as the channel gave it (SMS, WhatsApp, Twilio), or typed by a teammate. */
    phone: text(),
    email: text(),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [
    index().on(t.phone),
    index('contacts_search_index').using('gin', sql`to_tsvector('simple', coalesce(${t.name}, '') || ' ' || coalesce(${t.email}, '') || ' ' || coalesce(${t.phone}, ''))`),
  ],
);
