import { boolean, integer, pgTable, serial, text, timestamp, index } from 'drizzle-orm/pg-core';

/** People who sign in. `passwordHash` is null for accounts still waiting for set-password (spec §4). */
export const users = pgTable('users', {
  id: serial().primaryKey(),
  email: text().notNull().unique(),
  passwordHash: text(),
  role: text({ enum: ['ADMIN', 'NORMAL'] }).notNull().default('NORMAL'),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  /** The Facebook user id (`/me` id) linked to this account: set by Facebook login, or after a password proof. */
  facebookId: text().unique(),
  /** Deactivated by an ADMIN (issue 24): cannot sign in, sessions ended at once; kept for history. */
  active: boolean().notNull().default(true),
});

/**
 * One-time links to set a password (modules/users/password-tokens.ts): only the SHA-256 of the token is kept,
 * bound to an email (and to the user when the account exists), with an expiry; a use deletes the row.
 */
export const passwordTokens = pgTable(
  'password_tokens',
  {
    id: serial().primaryKey(),
    tokenHash: text().notNull().unique(),
    email: text().notNull(),
    userId: integer().references(() => users.id, { onDelete: 'cascade' }),
    purpose: text({ enum: ['FACEBOOK_LOGIN', 'FORGOT_PASSWORD', 'ADMIN_RESET', 'INVITATION'] }).notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index().on(t.userId), index().on(t.expiresAt)],
);

/**
 * Failed sign-in attempts per account (keyed by a hash of the email, whether an account has it or not), in the
 * database so every instance counts the same attempts (modules/users/login-throttle.ts).
 */
export const loginThrottles = pgTable('login_throttles', {
  key: text().primaryKey(),
  failures: integer().notNull().default(0),
  lastAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp({ withTimezone: true }),
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
