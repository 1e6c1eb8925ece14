import { PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDrizzleParsersOnce } from './pglite-parsers.ts';
import { pgTable, serial, timestamp, date, interval, text } from 'drizzle-orm/pg-core';

/** PGlite only (the embedded mode), whatever TEST_DB says: this is about PGlite's query path. */
const events = pgTable('parser_events', {
  id: serial().primaryKey(),
  at: timestamp({ withTimezone: true }).notNull(),
  local: timestamp().notNull(),
  day: date().notNull(),
  wait: interval().notNull(),
  note: text().notNull(),
});

let client: PGlite;
let spreads = 0;
beforeAll(async () => {
  client = withDrizzleParsersOnce(new PGlite('memory://'));
  await client.waitReady;
  await client.exec(`create table parser_events (id serial primary key, at timestamptz not null, local timestamp not null, day date not null, wait interval not null, note text not null)`);
  // Counts copies of PGlite's parser table (an object spread reads its own keys).
  client.parsers = new Proxy(client.parsers, {
    ownKeys(target) {
      spreads += 1;
      return Reflect.ownKeys(target);
    },
  });
});
afterAll(() => client.close());

describe('withDrizzleParsersOnce', () => {
  it('answers drizzle the same values without copying the parser table per statement, in and out of transactions', async () => {
    const db = drizzle(client);
    const at = new Date('2025-03-04T05:06:07.089Z');
    const [row] = await db.insert(events).values({ at, local: at, day: '2025-03-04', wait: '1 day 02:00:00', note: 'n' }).returning();
    const read = async (d: typeof db) => (await d.select().from(events).where(eq(events.id, row.id)))[0];
    const inTransaction = await db.transaction(async (tx) => (await tx.select().from(events).where(eq(events.id, row.id)))[0]);
    spreads = 0;
    for (const got of [await read(db), inTransaction, await db.transaction(async (tx) => read(tx as unknown as typeof db))]) {
      expect(got).toEqual({ id: row.id, at, local: at, day: '2025-03-04', wait: '1 day 02:00:00', note: 'n' });
    }
    expect(spreads).toBe(0);
    // Raw SQL through drizzle too (the health check's select 1, sql`` reads).
    const raw = await db.execute(sql`select ${at}::timestamptz as at`);
    expect(raw.rows[0]).toEqual({ at: '2025-03-04 05:06:07.089+00' });
    expect(spreads).toBe(0);
  });

  it('keeps the per-query merge for options with any other parser', async () => {
    const upper = await client.query<{ note: string }>(`select 'quiet' as note`, [], { parsers: { [25]: (v: string) => v.toUpperCase() } });
    expect(upper.rows[0].note).toBe('QUIET');
    const plain = await client.query<{ at: Date }>(`select '2025-01-01 00:00:00+00'::timestamptz as at`);
    // Without options PGlite's own table answers: timestamps as text, as drizzle's columns expect.
    expect(plain.rows[0].at).toBe('2025-01-01 00:00:00+00');
  });
});
