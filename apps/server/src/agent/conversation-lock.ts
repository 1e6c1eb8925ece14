import type pg from 'pg';
import type { AppContext } from '../context.ts';

/**
 * Turns, follow-ups and the admin's follow-up button of ONE conversation never run at the same time, also
 * across server processes sharing a PostgreSQL database (see docs/agent.md "Concurrency"):
 *
 * 1. In this process a per-conversation queue (below) serialises callers. With PGlite this is the whole
 *    story: PGlite is embedded, so only one process can use its database.
 * 2. With PostgreSQL the holder also takes a session advisory lock `pg_try_advisory_lock(7301, id)` on a
 *    connection it keeps for the duration. If the process dies, PostgreSQL drops the connection and with it
 *    the lock, so a crash never leaves a conversation locked (no lease to expire).
 *
 * The lock is for the slow part (LLM calls). The write that sends a reply re-checks the conversation under
 * `SELECT … FOR UPDATE` (see turn.ts), so even a lock lost with its connection cannot send a reply twice.
 */
const ADVISORY_NAMESPACE = 7301;
const POLL_MS = 25;

/** Another worker holds the conversation; job handlers let the runner retry later. */
export class ConversationBusyError extends Error {
  constructor(conversationId: number) {
    super(`Conversation ${conversationId} is busy with another turn.`);
    this.name = 'ConversationBusyError';
  }
}

const localHolders = new WeakMap<object, Map<number, Promise<void>>>();

export async function withConversationLock<T>(
  ctx: AppContext,
  conversationId: number,
  fn: () => Promise<T>,
  options: { waitMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? 2_000);
  const releaseLocal = await acquireLocal(ctx, conversationId, deadline);
  let client: pg.PoolClient | null = null;
  try {
    if (ctx.database.driver === 'pg') client = await acquireAdvisory(ctx, conversationId, deadline);
    return await fn();
  } finally {
    if (client) {
      try {
        await client.query('select pg_advisory_unlock($1, $2)', [ADVISORY_NAMESPACE, conversationId]);
        client.release();
      } catch (err) {
        // A broken connection has lost the lock already; destroy it rather than return it to the pool.
        client.release(err as Error);
      }
    }
    releaseLocal();
  }
}

/** Waits for this process's previous holder of the conversation, up to the deadline. */
async function acquireLocal(ctx: AppContext, conversationId: number, deadline: number): Promise<() => void> {
  let holders = localHolders.get(ctx.database);
  if (!holders) localHolders.set(ctx.database, (holders = new Map()));
  for (;;) {
    const current = holders.get(conversationId);
    if (!current) break;
    const left = deadline - Date.now();
    if (left <= 0) throw new ConversationBusyError(conversationId);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([current, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
    clearTimeout(timer);
  }
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  holders.set(conversationId, held);
  return () => {
    holders.delete(conversationId);
    release();
  };
}

async function acquireAdvisory(ctx: AppContext, conversationId: number, deadline: number): Promise<pg.PoolClient> {
  const pool = (ctx.db as unknown as { $client: pg.Pool }).$client;
  const client = await pool.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1, $2) as locked', [
        ADVISORY_NAMESPACE,
        conversationId,
      ]);
      if (rows[0]?.locked) return client;
      if (Date.now() >= deadline) throw new ConversationBusyError(conversationId);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (err) {
    client.release();
    throw err;
  }
}
