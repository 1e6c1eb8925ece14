import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test/test-database.ts';
import type { Database } from './client.ts';
import { literal, preparedRead } from './prepared.ts';
import { conversations } from './schema/index.ts';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('literal (EXECUTE arguments on PGlite)', () => {
  it('writes integers, booleans, null and uuids', () => {
    expect(literal(42)).toBe('42');
    expect(literal(-7)).toBe('-7');
    expect(literal(true)).toBe('true');
    expect(literal(null)).toBe('null');
    expect(literal(undefined)).toBe('null');
    expect(literal('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe("'0F8FAD5B-D9CB-469F-A165-70867728950E'");
  });

  it('refuses anything whose text could carry SQL, or is not exact', () => {
    for (const value of ["x'); drop table users; --", "0f8fad5b-d9cb-469f-a165-70867728950e'", 'abc', '', 1.5, Number.NaN, 2 ** 60, {}, [1], 10n]) {
      expect(() => literal(value), String(value)).toThrow(/cannot be an EXECUTE argument/);
    }
  });
});

describe('preparedRead', () => {
  it('answers the same rows on every call, with placeholders bound by name in any order, and concurrent first calls share one PREPARE', async () => {
    const [row] = await database.db.insert(conversations).values({ phase: 3 }).returning();
    const read = preparedRead<{ uuid: string; phase: number }, { id: number; label: string }>(database, 'prepared_test_read', (db) =>
      db
        .select({ id: sql<number>`${conversations.id}`.as('id'), label: sql<string>`'phase ' || ${conversations.phase}`.as('label') })
        .from(conversations)
        .where(sql`${conversations.phase} = ${sql.placeholder('phase')} and ${eq(conversations.uuid, sql.placeholder('uuid'))}`),
    );
    const answers = await Promise.all([1, 2, 3].map(() => read.execute({ uuid: row.uuid, phase: 3 })));
    for (const rows of answers) expect(rows).toEqual([{ id: row.id, label: 'phase 3' }]);
    expect(await read.execute({ phase: 4, uuid: row.uuid })).toEqual([]);
  });

  it('refuses a statement name that is not a plain identifier', () => {
    expect(() => preparedRead(database, 'bad name; drop', (db) => db.select({ one: sql`1`.as('one') }).from(conversations))).toThrow(/plain statement name/);
  });
});
