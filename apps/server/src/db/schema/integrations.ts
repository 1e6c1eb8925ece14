import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.ts';
import { serialId, bigserialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/**
 * API keys (issue 27, docs/api.md): only the SHA-256 of the key is stored, with its first characters for the
 * screen. A key acts as its creator (deleted with them) with its scopes narrowing what it may do; a revoked
 * key keeps its row (revokedAt) so the list still shows who made it and when it was last used.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serialId(),
    name: text().notNull(),
    /** The key's first characters ("sak_AbCd…"): how the list names it. */
    prefix: text().notNull(),
    keyHash: text().notNull().unique(),
    scopes: jsonb().$type<string[]>().notNull(),
    createdBy: ownedBy(() => users.id),
    createdAt: timestampNow(),
    lastUsedAt: timestampTz(),
    revokedAt: timestampTz(),
  },
  (t) => [index().on(t.createdBy)],
);

/** Outbound webhook endpoints (issue 27): a URL, the events it gets, its signing secret (sealed). */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: serialId(),
  url: text().notNull(),
  events: jsonb().$type<string[]>().notNull(),
  /** The signing secret, sealed with APP_SECRET (lib/crypto.ts). */
  secretSealed: text().notNull(),
  enabled: boolean().notNull().default(true),
  /** Why it was disabled (kept failing, or by an ADMIN): the notice the screen shows. */
  disabledReason: text(),
  /** Failed attempts since its last success: past the limit the endpoint is disabled. */
  consecutiveFailures: integer().notNull().default(0),
  createdBy: optionalRef(() => users.id),
  createdAt: timestampNow(),
});

/**
 * The webhook outbox: one row per event, written in the same statement or transaction as the change it reports,
 * with a stable `eventId` (X-Webhook-Id) and the body every endpoint receives.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: bigserialId(),
    eventId: uuid().notNull().unique().default(sql`gen_random_uuid()`),
    type: text().notNull(),
    /** Deliveries of one lane go out in id order (a conversation's events: `c:<id>`). */
    lane: text().notNull(),
    data: jsonb().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.createdAt)],
);

/** One event to one endpoint: its attempts, last answer and state. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserialId(),
    eventId: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: ownedBy(() => webhookEndpoints.id),
    lane: text().notNull(),
    status: text({ enum: ['PENDING', 'DELIVERED', 'FAILED'] }).notNull().default('PENDING'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestampNow(),
    responseCode: integer(),
    responseMs: integer(),
    lastError: text(),
    createdAt: timestampNow(),
    lastAttemptAt: timestampTz(),
  },
  (t) => [index().on(t.endpointId, t.lane, t.status, t.id), index().on(t.eventId), index().on(t.endpointId, t.id)],
);
