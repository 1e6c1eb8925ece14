import type { Executor } from './executor.ts';

export type { Executor };

type Effect = () => void | Promise<void>;

/** The effects each open transaction (or savepoint) has collected; a transaction missing here is not ours. */
const pending = new WeakMap<object, Effect[]>();

/**
 * Runs `effect` once the writes made through `executor` are committed: inside a transaction it waits for the
 * outermost commit and is dropped if the transaction (or the savepoint it was registered in) rolls back;
 * outside a transaction (`ctx.db`) it runs at once. This is how a write that may join its caller's transaction
 * tells the screens (live events) or the job runner: the caller no longer has to remember to emit after its
 * commit, and a rolled-back write never announces a row nobody can read.
 *
 * Effects run in the order they were registered and are awaited before `transaction()` returns, so a caller
 * that awaited the transaction has also seen its effects happen (as when it emitted by hand). An effect that
 * throws makes `transaction()` reject after the commit, as an emit written after the commit would have.
 */
export async function afterCommit(executor: Executor, effect: Effect): Promise<void> {
  const effects = pending.get(executor);
  if (effects) effects.push(effect);
  else await effect();
}

interface Transactional {
  transaction<T>(fn: (tx: never) => Promise<T>, config?: unknown): Promise<T>;
}

/**
 * Gives `db.transaction` (and every nested `tx.transaction`, a savepoint) its after-commit list. Applied once
 * to the database object in openDatabase, so every transaction in the project has it, on PGlite and PostgreSQL.
 * A savepoint's effects join its parent's list when the savepoint is released and are dropped when it rolls
 * back; they run only when the outermost transaction commits.
 */
export function withAfterCommit<T extends object>(db: T): T {
  onSettled(db as unknown as Transactional, async (effects) => {
    for (const effect of effects) await effect();
  });
  return db;
}

/** Registers a transaction's list and makes its savepoints hand their effects up on release. */
function track(tx: object, effects: Effect[]): void {
  pending.set(tx, effects);
  onSettled(tx as Transactional, (own) => void effects.push(...own));
}

/** Wraps `target.transaction` so each transaction it opens collects effects, handed to `settled` on success. */
function onSettled(target: Transactional, settled: (effects: Effect[]) => void | Promise<void>): void {
  const begin = target.transaction.bind(target);
  target.transaction = async (fn, config) => {
    const effects: Effect[] = [];
    const result = await begin(async (tx: object) => {
      track(tx, effects);
      return fn(tx as never);
    }, config);
    // Reached only on commit (or a savepoint's release): a rollback threw above and its effects are gone.
    await settled(effects);
    return result;
  };
}
