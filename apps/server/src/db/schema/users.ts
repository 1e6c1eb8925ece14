import { integer, pgTable, serial, text, timestamp, index } from 'drizzle-orm/pg-core';

/** People who sign in. `passwordHash` is null for accounts still waiting for set-password (spec §4). */
export const users = pgTable('users', {
  id: serial().primaryKey(),
  email: text().notNull().unique(),
  passwordHash: text(),
  role: text({ enum: ['ADMIN', 'NORMAL'] }).notNull().default('NORMAL'),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * Server-side sessions. `id` is the SHA-256 of the cookie token, so a database dump cannot be replayed
 * as a login.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index().on(t.userId)],
);

export const appConfig = pgTable('app_config', {
  key: text().primaryKey(),
  value: text().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});


/**
 * An ADMIN's invitation to register one email while REGISTRATION=invite (docs/deployment.md). `tokenHash` is the
 * SHA-256 of the link's token; `usedAt` is set by the registration it let through.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: serial().primaryKey(),
    email: text().notNull(),
    tokenHash: text().notNull().unique(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index().on(t.email)],
);
