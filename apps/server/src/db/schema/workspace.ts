import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { users } from './users.ts';
import { bigserialId, serialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/** Private notes of the team on a conversation (issue 24): never messages, never sent to a channel. */
export const conversationNotes = pgTable(
  'conversation_notes',
  {
    id: bigserialId(),
    conversationId: ownedBy(() => conversations.id),
    authorUserId: optionalRef(() => users.id),
    text: text().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.conversationId, t.createdAt)],
);

/** What a teammate is told (issue 24): assigned to them, mentioned in a note, a conversation needs a person. */
export const notifications = pgTable(
  'notifications',
  {
    id: bigserialId(),
    userId: ownedBy(() => users.id),
    kind: text({ enum: ['assigned', 'mentioned'] }).notNull(),
    conversationId: ownedBy(() => conversations.id),
    /** Email of the teammate who assigned or mentioned. */
    byEmail: text(),
    text: text(),
    createdAt: timestampNow(),
    readAt: timestampTz(),
  },
  (t) => [index().on(t.userId, t.createdAt.desc()), index().on(t.conversationId)],
);

/**
 * The team's saved replies (issue 24): one list for the whole team (the installation is one team). ADMIN keeps
 * the list; every signed-in teammate inserts them in the composer by typing "/" and the shortcut.
 */
export const cannedReplies = pgTable(
  'canned_replies',
  {
    id: serialId(),
    /** Lower-case letters, digits and dashes, unique: what follows "/" in the composer. */
    shortcut: text().notNull(),
    text: text().notNull(),
    createdByUserId: optionalRef(() => users.id),
    createdAt: timestampNow(),
    updatedAt: timestampNow(),
  },
  (t) => [uniqueIndex().on(t.shortcut)],
);
