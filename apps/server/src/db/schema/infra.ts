import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { conversations } from './conversations.ts';
import { messagingAccounts } from './playbooks.ts';

/**
 * Raw inbound channel events, stored before anything else happens so a webhook can answer 200 at once
 * and a redelivery of the same event (same source + external id) is a no-op (DESIGN.md §7).
 */
export const webhookInbox = pgTable(
  'webhook_inbox',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    source: text().notNull(),
    externalId: text().notNull(),
    payload: jsonb().notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp({ withTimezone: true }),
    error: text(),
  },
  (t) => [unique().on(t.source, t.externalId)],
);

/** Messages waiting to be sent through a channel, retried with backoff (DESIGN.md §7). */
export const outbox = pgTable(
  'outbox',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    conversationId: integer().references(() => conversations.id, { onDelete: 'cascade' }),
    messagingAccountId: integer().references(() => messagingAccounts.id, { onDelete: 'cascade' }),
    messageId: integer(),
    channel: text().notNull(),
    payload: jsonb().notNull(),
    status: text({ enum: ['PENDING', 'SENT', 'FAILED'] }).notNull().default('PENDING'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    errorCode: text(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true }),
  },
  (t) => [index().on(t.status, t.nextAttemptAt)],
);

/**
 * Durable background jobs (jobs/runner.ts). Claimed with FOR UPDATE SKIP LOCKED so several server
 * processes can share one PostgreSQL without running a job twice. A `singletonKey` allows at most one
 * pending-or-running job per key (e.g. one follow-up per conversation).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    name: text().notNull(),
    payload: jsonb().notNull().default({}),
    runAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    status: text({ enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    maxAttempts: integer().notNull().default(5),
    lockedUntil: timestamp({ withTimezone: true }),
    singletonKey: text(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index().on(t.status, t.runAt),
    uniqueIndex()
      .on(t.singletonKey)
      .where(sql`${t.status} in ('pending', 'running')`),
  ],
);
