import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test/test-database.ts';
import { afterCommit } from './after-commit.ts';
import type { Database } from './client.ts';
import { conversations } from './schema/index.ts';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

/** Whether a conversation row with this id is visible outside the transaction that wrote it. */
async function committed(id: number): Promise<boolean> {
  const rows = await database.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.id, id));
  return rows.length === 1;
}

describe('afterCommit', () => {
  it('outside a transaction runs the effect at once', async () => {
    const fired: string[] = [];
    await afterCommit(database.db, () => void fired.push('now'));
    expect(fired).toEqual(['now']);
  });

  it('inside a transaction runs the effect once, after the commit, where the row is visible', async () => {
    const fired: boolean[] = [];
    let id = 0;
    await database.db.transaction(async (tx) => {
      [{ id }] = await tx.insert(conversations).values({ phase: 1 }).returning({ id: conversations.id });
      await afterCommit(tx, async () => void fired.push(await committed(id)));
      await afterCommit(tx, async () => void fired.push(await committed(id)));
      expect(fired).toEqual([]);
    });
    // Both effects ran, each once, in order, and each saw the committed row.
    expect(fired).toEqual([true, true]);
  });

  it('never runs the effect when the transaction rolls back', async () => {
    const fired: string[] = [];
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(conversations).values({ phase: 1 });
        await afterCommit(tx, () => void fired.push('rolled back'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // The next transaction starts with an empty list: nothing of the failed one leaks into it.
    await database.db.transaction(async (tx) => {
      await afterCommit(tx, () => void fired.push('next'));
    });
    expect(fired).toEqual(['next']);
  });

  it('a released savepoint hands its effects to the outer transaction; a rolled-back one drops them', async () => {
    const fired: string[] = [];
    await database.db.transaction(async (tx) => {
      await tx.transaction(async (kept) => {
        await afterCommit(kept, () => void fired.push('released savepoint'));
      });
      await expect(
        tx.transaction(async (dropped) => {
          await afterCommit(dropped, () => void fired.push('rolled-back savepoint'));
          throw new Error('savepoint fails');
        }),
      ).rejects.toThrow('savepoint fails');
      // Nothing runs before the outermost commit, not even the released savepoint's effect.
      expect(fired).toEqual([]);
      await afterCommit(tx, () => void fired.push('outer'));
    });
    expect(fired).toEqual(['released savepoint', 'outer']);
  });

  it("a savepoint's effects are dropped when the outer transaction rolls back", async () => {
    const fired: string[] = [];
    await expect(
      database.db.transaction(async (tx) => {
        await tx.transaction(async (inner) => {
          await afterCommit(inner, () => void fired.push('inner'));
        });
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(fired).toEqual([]);
  });
});
