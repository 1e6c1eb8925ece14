import type { Actor } from '../../context.ts';
import type { EventBus } from '../../lib/events.ts';

/**
 * How long a session found in the database is believed without asking again. Every API request resolves its
 * cookie; without this each one starts with a query (a fifth to a half of a simple read's time,
 * docs/performance.md "Conversation read"). Ending a session (logout, deleted user) clears the cache at once
 * here and, through the event bus (LISTEN/NOTIFY on PostgreSQL), on every other instance; this TTL only
 * bounds what nobody announces: a row deleted by hand, or a notification lost while an instance's LISTEN
 * connection reconnects (docs/security.md, Sessions).
 */
export const SESSION_CACHE_TTL_MS = 5_000;
/** Entries are small; the cap only stops a flood of distinct valid sessions from growing memory. */
const MAX_ENTRIES = 10_000;

interface Entry {
  actor: Actor;
  /** The session's own expiry (sessions.expires_at): never believed past it. */
  sessionExpiresAt: number;
  cachedUntil: number;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /**
   * Bumped by every revocation. A lookup that started before one may have read the row just before it was
   * deleted: it still answers its own request (as without a cache) but must not store what it read.
   */
  private generation = 0;

  /** The cached user of a session id (the token's hash), or undefined when the database must be asked. */
  get(sessionId: string, now = Date.now()): Actor | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (now >= entry.cachedUntil || now >= entry.sessionExpiresAt) {
      this.entries.delete(sessionId);
      return undefined;
    }
    // A copy: request.actor belongs to one request.
    return { ...entry.actor };
  }

  /** A token for `set`: taken before the database is asked. */
  begin(): number {
    return this.generation;
  }

  set(sessionId: string, actor: Actor, sessionExpiresAt: Date, startedAt: number, now = Date.now()): void {
    if (startedAt !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.sweep(now);
    this.entries.set(sessionId, { actor: { ...actor }, sessionExpiresAt: sessionExpiresAt.getTime(), cachedUntil: now + SESSION_CACHE_TTL_MS });
  }

  /** Forgets every session: the next request of each reads the database again. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private sweep(now: number): void {
    for (const [id, entry] of this.entries) if (now >= entry.cachedUntil) this.entries.delete(id);
    // Still full of live entries: drop the oldest (Map keeps insertion order); they are read again on demand.
    for (const id of this.entries.keys()) {
      if (this.entries.size < MAX_ENTRIES) break;
      this.entries.delete(id);
    }
  }
}

const caches = new WeakMap<EventBus, SessionCache>();

/**
 * The cache of one app instance, keyed by its event bus: the bus is both per instance and what carries
 * `sessions.revoked` from every instance (its own emits included).
 */
export function sessionCacheOf(events: EventBus): SessionCache {
  let cache = caches.get(events);
  if (!cache) {
    const created = new SessionCache();
    events.on('sessions.revoked', () => created.clear());
    caches.set(events, created);
    cache = created;
  }
  return cache;
}
