import { inArray } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { conversations } from '../../db/schema/index.ts';
import { grantedAccountIds } from '../messaging-accounts/access.ts';
import { mayAdminister } from './conversation-policy.ts';

/**
 * Who may see a live event of the inbox stream (issue 18), without a query per event. A burst of
 * `conversation.changed` events (a busy hour, a webhook replay) used to cost every open NORMAL user's stream
 * two statements per event: the conversation's account, then the user's grant on it.
 *
 * - Each stream holds its viewer's granted account ids (ViewerGrants): loaded once, again after
 *   GRANTS_TTL_MS, and at once when `grants.changed` names the viewer (or everyone) or a user is deleted
 *   (`sessions.revoked`). Every path that gives or removes a grant emits it, and with PostgreSQL it reaches every instance (lib/events.ts), so a revoked
 *   grant stops the events from the next one on; the TTL is the backstop for a change made outside the app.
 * - A conversation's account (`conversations.messaging_account_id`, set when it is created) is looked up
 *   per process for all streams at once (ConversationAccounts): events arriving in the same turn of the event
 *   loop share one statement, and the answer is kept for CONVERSATION_ACCOUNT_TTL_MS.
 */
export const GRANTS_TTL_MS = 30_000;
export const CONVERSATION_ACCOUNT_TTL_MS = 60_000;
/** Conversations whose account is remembered at most; the oldest are forgotten first. */
const CONVERSATION_ACCOUNT_MAX = 10_000;

/** One process's conversation → messaging account map, looked up in batches. Web chats map to null. */
export class ConversationAccounts {
  private readonly cache = new Map<number, { accountId: number | null; at: number }>();
  private readonly inflight = new Map<number, Promise<number | null>>();
  private pending = new Map<number, { resolve(value: number | null): void; reject(err: unknown): void }>();
  private scheduled = false;

  constructor(private readonly ctx: AppContext) {}

  accountOf(conversationId: number): Promise<number | null> {
    const hit = this.cache.get(conversationId);
    if (hit && Date.now() - hit.at < CONVERSATION_ACCOUNT_TTL_MS) return Promise.resolve(hit.accountId);
    const running = this.inflight.get(conversationId);
    if (running) return running;
    const promise = new Promise<number | null>((resolve, reject) => this.pending.set(conversationId, { resolve, reject }));
    this.inflight.set(conversationId, promise);
    if (!this.scheduled) {
      this.scheduled = true;
      // Events emitted together (a loop of emits, one socket read of notifications) are looked up together.
      setImmediate(() => void this.flush());
    }
    return promise;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    try {
      const rows = await this.ctx.db
        .select({ id: conversations.id, accountId: conversations.messagingAccountId })
        .from(conversations)
        .where(inArray(conversations.id, ids));
      const found = new Map(rows.map((row) => [row.id, row.accountId]));
      const now = Date.now();
      for (const [id, waiter] of batch) {
        const accountId = found.get(id) ?? null;
        // A conversation not found (gone, or not yet visible to this connection) is nobody's now, and is not
        // remembered: a later event asks again.
        if (found.has(id)) this.remember(id, accountId, now);
        this.inflight.delete(id);
        waiter.resolve(accountId);
      }
    } catch (err) {
      for (const [id, waiter] of batch) {
        this.inflight.delete(id);
        waiter.reject(err);
      }
    }
  }

  private remember(id: number, accountId: number | null, at: number): void {
    this.cache.delete(id);
    this.cache.set(id, { accountId, at });
    if (this.cache.size > CONVERSATION_ACCOUNT_MAX) this.cache.delete(this.cache.keys().next().value as number);
  }
}

/** A NORMAL viewer's granted account ids, cached for one stream (see above). */
export class ViewerGrants {
  private ids: Set<number> | null = null;
  private loadedAt = 0;
  private loading: Promise<Set<number>> | null = null;
  /** Bumped by every invalidation: a load that started before it is not trusted. */
  private generation = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly actor: Actor,
  ) {}

  invalidate(): void {
    this.generation++;
    this.ids = null;
    this.loading = null;
  }

  async get(): Promise<Set<number>> {
    for (;;) {
      const generation = this.generation;
      if (this.ids && Date.now() - this.loadedAt < GRANTS_TTL_MS) return this.ids;
      const ids = await this.load(generation);
      // Grants changed while they were read: read them again rather than answer from the old set.
      if (generation === this.generation) return ids;
    }
  }

  private load(generation: number): Promise<Set<number>> {
    if (!this.loading) {
      const loading = grantedAccountIds(this.ctx, this.actor).then((list) => {
        const ids = new Set(list === 'all' ? [] : list);
        if (generation === this.generation) {
          this.ids = ids;
          this.loadedAt = Date.now();
        }
        return ids;
      });
      this.loading = loading;
      void loading.then(
        () => this.loading === loading && (this.loading = null),
        () => this.loading === loading && (this.loading = null),
      );
    }
    return this.loading;
  }
}

export interface InboxViewer {
  userId: number;
  maySee(conversationId: number): Promise<boolean>;
  /** Stops watching grant changes (the stream closed). */
  close(): void;
}

/**
 * The inbox stream's access check for one viewer: the list's rule, mayAdminister of conversation-policy.ts
 * (an ADMIN every conversation; a NORMAL user one on an account granted to them, never a web chat), answered
 * from the stream's caches instead of a query per event.
 */
export function inboxViewer(ctx: AppContext, actor: Actor, accounts: ConversationAccounts): InboxViewer {
  if (actor.role === 'ADMIN') return { userId: actor.id, maySee: async () => true, close: () => {} };
  const grants = new ViewerGrants(ctx, actor);
  const offGrants = ctx.events.on('grants.changed', (event) => {
    if (event.userId === null || event.userId === actor.id) grants.invalidate();
  });
  // A deleted user's grants went with them (by cascade); their streams still open must not go on from the cache.
  const offRevoked = ctx.events.on('sessions.revoked', (event) => {
    if (event.reason === 'user deleted') grants.invalidate();
  });
  return {
    userId: actor.id,
    maySee: async (conversationId) => {
      const messagingAccountId = await accounts.accountOf(conversationId);
      return mayAdminister(actor, { messagingAccountId }, messagingAccountId !== null && (await grants.get()).has(messagingAccountId));
    },
    close: () => {
      offGrants();
      offRevoked();
    },
  };
}
