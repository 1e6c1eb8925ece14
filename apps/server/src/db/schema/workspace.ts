import { bigserial, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { users } from './users.ts';

/** Private notes of the team on a conversation (issue 24): never messages, never sent to a channel. */
export const conversationNotes = pgTable(
  'conversation_notes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    conversationId: integer()
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    authorUserId: integer().references(() => users.id, { onDelete: 'set null' }),
    text: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index().on(t.conversationId, t.createdAt)],
);

/** What a teammate is told (issue 24): assigned to them, mentioned in a note, a conversation needs a person. */
export const notifications = pgTable(
  'notifications',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text({ enum: ['assigned', 'mentioned'] }).notNull(),
    conversationId: integer()
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    /** Email of the teammate who assigned or mentioned. */
    byEmail: text(),
    text: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp({ withTimezone: true }),
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
    id: serial().primaryKey(),
    /** Lower-case letters, digits and dashes, unique: what follows "/" in the composer. */
    shortcut: text().notNull(),
    text: text().notNull(),
    createdByUserId: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.shortcut)],
);
