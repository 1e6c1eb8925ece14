import { bigint, doublePrecision, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.ts';

/** An uploaded sales-call recording (spec §3 "Call recording"). The file lives in storage under `storageKey`. */
export const callRecordings = pgTable(
  'call_recordings',
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storageKey: text().notNull(),
    originalName: text().notNull(),
    mimeType: text().notNull(),
    sizeBytes: bigint({ mode: 'number' }).notNull(),
    /** Seconds, read from the media itself. */
    duration: doublePrecision().notNull().default(0),
    fileExtension: text().notNull(),
    transcript: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index().on(t.userId, t.createdAt), index().on(t.createdAt)],
);
