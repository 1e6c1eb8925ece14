import { boolean, integer, pgTable, text, index } from 'drizzle-orm/pg-core';
import { serialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/** People who sign in. `passwordHash` is null for accounts still waiting for set-password (spec §4). */
export const users = pgTable('users', {
  id: serialId(),
  email: text().notNull().unique(),
  passwordHash: text(),
  role: text({ enum: ['ADMIN', 'NORMAL'] }).notNull().default('NORMAL'),
  createdAt: timestampNow(),
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
    id: serialId(),
    tokenHash: text().notNull().unique(),
    email: text().notNull(),
    userId: optionalRef(() => users.id, 'cascade'),
    purpose: text({ enum: ['FACEBOOK_LOGIN', 'FORGOT_PASSWORD', 'ADMIN_RESET', 'INVITATION'] }).notNull(),
    expiresAt: timestampTz().notNull(),
    createdAt: timestampNow(),
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
  lastAttemptAt: timestampNow(),
  lockedUntil: timestampTz(),
});

/**
 * Server-side sessions. `id` is the SHA-256 of the cookie token, so a database dump cannot be replayed
 * as a login.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    userId: ownedBy(() => users.id),
    createdAt: timestampNow(),
    expiresAt: timestampTz().notNull(),
  },
  (t) => [index().on(t.userId)],
);

export const appConfig = pgTable('app_config', {
  key: text().primaryKey(),
  value: text().notNull(),
  updatedAt: timestampNow(),
});


/**
 * An ADMIN's invitation to register one email while REGISTRATION=invite (docs/deployment.md). `tokenHash` is the
 * SHA-256 of the link's token; `usedAt` is set by the registration it let through.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: serialId(),
    email: text().notNull(),
    tokenHash: text().notNull().unique(),
    createdBy: optionalRef(() => users.id),
    createdAt: timestampNow(),
    expiresAt: timestampTz().notNull(),
    usedAt: timestampTz(),
  },
  (t) => [index().on(t.email)],
);
