import { bigint, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { bigserialId, timestampTz, timestampNow } from './columns.ts';

/**
 * Shared state of several server instances on one PostgreSQL (docs/deployment.md). The embedded mode
 * (PGlite, one process) keeps these in memory and leaves the tables empty.
 */

/**
 * Live-event payloads too large for a NOTIFY (8000 bytes): the notification carries only the row id and
 * receivers read the payload here. Rows are short-lived and swept after a minute.
 */
export const liveEvents = pgTable(
  'live_events',
  {
    id: bigserialId(),
    payload: jsonb().notNull(),
    createdAt: timestampNow(),
  },
  (t) => [index().on(t.createdAt)],
);

/** Fixed-window counters (rate limits, upload bytes per day): one row per key, reset when the window ends. */
export const rateCounters = pgTable(
  'rate_counters',
  {
    key: text().primaryKey(),
    // bigint: upload bytes per day pass 2^31.
    count: bigint({ mode: 'number' }).notNull(),
    resetAt: timestampTz().notNull(),
  },
  (t) => [index().on(t.resetAt)],
);

/**
 * Open live streams (SSE), one row per stream, so a cap per client holds across instances. Each instance
 * renews its leases while the streams are open; a crashed instance's leases expire on their own.
 */
export const liveStreamLeases = pgTable(
  'live_stream_leases',
  {
    id: text().primaryKey(),
    clientKey: text().notNull(),
    instanceId: text().notNull(),
    expiresAt: timestampTz().notNull(),
  },
  (t) => [index().on(t.clientKey), index().on(t.instanceId)],
);
