import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { JobDeferredError } from '../jobs/runner.ts';

/**
 * Turns, follow-ups and the admin's follow-up button of ONE conversation never run at the same time, also
 * across server processes sharing a PostgreSQL database (see docs/agent.md "Concurrency"):
 *
 * 1. In this process a per-conversation queue (below) serialises callers. With PGlite this is the whole
 *    story: PGlite is embedded, so only one process can use its database.
 * 2. With PostgreSQL the holder also takes a lease: a committed `conversation_locks` row (owner, expiry),
 *    renewed every third of LEASE_MS while the turn runs and deleted at its end. No pooled connection is
 *    held meanwhile (a session advisory lock pinned one per turn, so as many turns as the pool has
 *    connections waited forever for a second one). If the process dies, the lease simply expires.
 *
 * The lock is for the slow part (LLM calls). The write that sends a reply re-checks the conversation under
 * `SELECT … FOR UPDATE` (see turn.ts), so even a lease lost to a stalled process cannot send a reply twice.
 */
export const LEASE_MS = 30_000;
const POLL_MS = 50;
/** When a job finds its conversation busy, it is tried again this much later (without counting an attempt). */
const BUSY_RETRY_MS = 1_000;

/** Another worker holds the conversation; job handlers let the runner try again later, attempts untouched. */
export class ConversationBusyError extends JobDeferredError {
  constructor(conversationId: number) {
    super(`Conversation ${conversationId} is busy with another turn.`, BUSY_RETRY_MS);
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
  let lease: { release(): Promise<void> } | null = null;
  try {
    if (ctx.database.driver === 'pg') lease = await acquireLease(ctx, conversationId, deadline);
    return await fn();
  } finally {
    try {
      await lease?.release();
    } catch (err) {
      // Not released: it expires by itself after LEASE_MS.
      ctx.log.warn({ err, conversationId }, 'conversation lease release failed');
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

/**
 * Takes the conversation's lease row when it is free or expired (one autocommitted statement each try), then
 * renews it until released. Every statement borrows a pooled connection only for itself.
 */
async function acquireLease(ctx: AppContext, conversationId: number, deadline: number): Promise<{ release(): Promise<void> }> {
  const owner = randomUUID();
  for (;;) {
    const result = await ctx.db.execute(sql`
      insert into conversation_locks (conversation_id, owner, expires_at)
      values (${conversationId}, ${owner}, now() + (${LEASE_MS}::int * interval '1 millisecond'))
      on conflict (conversation_id) do update set owner = excluded.owner, expires_at = excluded.expires_at
        where conversation_locks.expires_at < now()
      returning owner`);
    if ((result as unknown as { rows: unknown[] }).rows.length > 0) break;
    if (Date.now() >= deadline) throw new ConversationBusyError(conversationId);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = ctx.db
      .execute(sql`
        update conversation_locks set expires_at = now() + (${LEASE_MS}::int * interval '1 millisecond')
        where conversation_id = ${conversationId} and owner = ${owner}`)
      .catch((err) => ctx.log.warn({ err, conversationId }, 'conversation lease renewal failed'));
  }, Math.floor(LEASE_MS / 3));
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await renewing;
      await ctx.db.execute(sql`delete from conversation_locks where conversation_id = ${conversationId} and owner = ${owner}`);
    },
  };
}
