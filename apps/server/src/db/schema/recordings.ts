import { bigint, doublePrecision, index, pgTable, text } from 'drizzle-orm/pg-core';
import { users } from './users.ts';
import { serialId, timestampNow, ownedBy } from './columns.ts';

/** An uploaded sales-call recording (spec §3 "Call recording"). The file lives in storage under `storageKey`. */
export const callRecordings = pgTable(
  'call_recordings',
  {
    id: serialId(),
    userId: ownedBy(() => users.id),
    storageKey: text().notNull(),
    originalName: text().notNull(),
    mimeType: text().notNull(),
    sizeBytes: bigint({ mode: 'number' }).notNull(),
    /** Seconds, read from the media itself. */
    duration: doublePrecision().notNull().default(0),
    fileExtension: text().notNull(),
    transcript: text(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.userId, t.createdAt), index().on(t.createdAt)],
);
