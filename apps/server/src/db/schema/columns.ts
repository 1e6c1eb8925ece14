import { type AnyPgColumn, bigserial, integer, serial, timestamp } from 'drizzle-orm/pg-core';

/**
 * The column shapes every table repeats (docs/architecture.md "Shared helpers"). Each call returns a new
 * builder: the column's name still comes from its key (snake_case), so the SQL is what the inline form made.
 */

/** `id serial primary key`. */
export const serialId = () => serial().primaryKey();

/** `id bigserial primary key`, for tables that pass 2^31 rows (messages, events, deliveries). */
export const bigserialId = () => bigserial({ mode: 'number' }).primaryKey();

/** `timestamp with time zone`, nullable (add `.notNull()` where required). */
export const timestampTz = () => timestamp({ withTimezone: true });

/** `timestamp with time zone not null default now()`: createdAt, updatedAt, receivedAt … */
export const timestampNow = () => timestampTz().notNull().defaultNow();

/** A required parent: `integer not null references parent on delete cascade` (the row goes with it). */
export const ownedBy = (parent: () => AnyPgColumn) => integer().notNull().references(parent, { onDelete: 'cascade' });

/** An optional link: `integer references parent on delete <onDelete>` ('set null' keeps the row, 'cascade' drops it). */
export const optionalRef = (parent: () => AnyPgColumn, onDelete: 'set null' | 'cascade' = 'set null') =>
  integer().references(parent, { onDelete });
