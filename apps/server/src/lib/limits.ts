import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';

/**
 * Counters and caps that bound abuse (rate limits, upload bytes per day, open live streams). With PostgreSQL
 * they live in the database so every instance enforces the same numbers (two instances must not allow twice
 * the login attempts); the embedded mode (one process) keeps them in memory.
 */
export interface Limits {
  /** Adds `amount` to a fixed-window counter and answers the new total and the time left in the window. */
  hit(key: string, windowMs: number, amount?: number): Promise<CounterState>;
  /** The counter's current total without changing it (0 when its window has ended). */
  read(key: string): Promise<CounterState>;
  /**
   * Takes a slot of a cap on concurrent things (open live streams) for every key, or none: null when any
   * key is at its max. The returned function gives the slots back; calling it twice is harmless.
   */
  acquire(slots: { key: string; max: number }[]): Promise<(() => void) | null>;
  close(): Promise<void>;
}

export interface CounterState {
  count: number;
  ttlMs: number;
}

/** The rows of a raw `db.execute` answer (both drivers put them under `rows`). */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

export function createLimits(database: Database, log: FastifyBaseLogger): Limits {
  return database.driver === 'pg' ? new PgLimits(database, log) : new MemoryLimits();
}

/** Expired counters are dropped once the map passes this size (cheap enough to do on the hot path). */
const MEMORY_SWEEP_SIZE = 10_000;

export class MemoryLimits implements Limits {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  private readonly open = new Map<string, number>();

  async hit(key: string, windowMs: number, amount = 1): Promise<CounterState> {
    const now = Date.now();
    let entry = this.counters.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.counters.size >= MEMORY_SWEEP_SIZE) this.sweep(now);
      entry = { count: 0, resetAt: now + windowMs };
      this.counters.set(key, entry);
    }
    entry.count += amount;
    return { count: entry.count, ttlMs: entry.resetAt - now };
  }

  async read(key: string): Promise<CounterState> {
    const now = Date.now();
    const entry = this.counters.get(key);
    if (!entry || entry.resetAt <= now) return { count: 0, ttlMs: 0 };
    return { count: entry.count, ttlMs: entry.resetAt - now };
  }

  async acquire(slots: { key: string; max: number }[]): Promise<(() => void) | null> {
    if (slots.some(({ key, max }) => (this.open.get(key) ?? 0) >= max)) return null;
    for (const { key } of slots) this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const { key } of slots) {
        const left = (this.open.get(key) ?? 1) - 1;
        if (left <= 0) this.open.delete(key);
        else this.open.set(key, left);
      }
    };
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.counters) if (entry.resetAt <= now) this.counters.delete(key);
  }

  async close(): Promise<void> {}
}

/** A lease lives this long unless its instance renews it (every LEASE_RENEW_MS while the stream is open). */
export const LEASE_TTL_MS = 90_000;
const LEASE_RENEW_MS = 30_000;
const SWEEP_MS = 60_000;
const AT_CAP = Symbol('at cap');

/**
 * Counters in rate_counters (one upsert per hit) and stream slots in live_stream_leases. A slot is a lease row
 * renewed by its instance; if the instance dies, its leases expire after LEASE_TTL_MS instead of holding the
 * client's slots for ever.
 */
export class PgLimits implements Limits {
  readonly instanceId = randomUUID();
  private readonly timer: NodeJS.Timeout;
  private held = 0;

  constructor(
    private readonly database: Database,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.maintain(), LEASE_RENEW_MS);
    this.timer.unref();
  }

  private get db() {
    return this.database.db;
  }

  async hit(key: string, windowMs: number, amount = 1): Promise<CounterState> {
    // One statement: a new or expired row starts a window, a live one adds to it. Concurrent hits from any
    // instance serialize on the row, so the total is exact.
    const result = await this.db.execute(sql`
      insert into rate_counters as c (key, count, reset_at)
      values (${key}, ${amount}, now() + (${windowMs}::bigint * interval '1 millisecond'))
      on conflict (key) do update set
        count = case when c.reset_at <= now() then excluded.count else c.count + excluded.count end,
        reset_at = case when c.reset_at <= now() then excluded.reset_at else c.reset_at end
      returning count, greatest(0, extract(epoch from (reset_at - now())) * 1000)::float8 as ttl`);
    const row = rowsOf<{ count: string; ttl: number }>(result)[0];
    return { count: Number(row.count), ttlMs: Math.ceil(Number(row.ttl)) };
  }

  async read(key: string): Promise<CounterState> {
    const result = await this.db.execute(sql`
      select count, extract(epoch from (reset_at - now())) * 1000 as ttl
      from rate_counters where key = ${key} and reset_at > now()`);
    const row = rowsOf<{ count: string; ttl: number }>(result)[0];
    return row ? { count: Number(row.count), ttlMs: Math.ceil(Number(row.ttl)) } : { count: 0, ttlMs: 0 };
  }

  async acquire(slots: { key: string; max: number }[]): Promise<(() => void) | null> {
    const ids: string[] = [];
    const granted = await this.db.transaction(async (tx) => {
      for (const { key, max } of [...slots].sort((a, b) => a.key.localeCompare(b.key))) {
        // Serializes acquirers of one key (count, then insert) across instances until the commit.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`stream:${key}`}, 0))`);
        const id = randomUUID();
        const inserted = await tx.execute(sql`
          insert into live_stream_leases (id, client_key, instance_id, expires_at)
          select ${id}, ${key}, ${this.instanceId}, now() + (${LEASE_TTL_MS}::int * interval '1 millisecond')
          where (select count(*) from live_stream_leases where client_key = ${key} and expires_at > now()) < ${max}
          returning id`);
        // At the cap: undo the slots of the other keys taken in this transaction.
        if (rowsOf(inserted).length === 0) throw AT_CAP;
        ids.push(id);
      }
      return true;
    }).catch((err: unknown) => {
      if (err === AT_CAP) return false;
      throw err;
    });
    if (!granted) return null;
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      void this.db
        .execute(sql`delete from live_stream_leases where id in ${ids}`)
        .catch((err) => this.log.warn({ err }, 'could not release a live stream slot'));
    };
  }

  /** Renews this instance's leases and drops expired rows of every instance. */
  private async maintain(): Promise<void> {
    try {
      if (this.held > 0) {
        await this.db.execute(sql`
          update live_stream_leases set expires_at = now() + (${LEASE_TTL_MS}::int * interval '1 millisecond')
          where instance_id = ${this.instanceId}`);
      }
      await this.db.execute(sql`delete from live_stream_leases where expires_at < now()`);
      await this.db.execute(sql`delete from rate_counters where reset_at < now() - (${SWEEP_MS}::int * interval '1 millisecond')`);
    } catch (err) {
      this.log.warn({ err }, 'could not renew live stream slots');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    // Streams are closed before the pool; their slots go with this instance's rows.
    await this.db.execute(sql`delete from live_stream_leases where instance_id = ${this.instanceId}`).catch(() => undefined);
  }
}

/**
 * A store for @fastify/rate-limit on top of Limits, so route limits (`config.rateLimit`) are shared between
 * instances too. Each route gets its own key space (method + URL pattern), like the plugin's own stores.
 */
export function rateLimitStore(limits: Limits) {
  return class LimitsStore {
    constructor(
      _options: unknown,
      private readonly prefix = 'rl:',
    ) {}
    incr(key: string, cb: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      limits.hit(this.prefix + key, timeWindow).then(
        (state) => cb(null, { current: state.count, ttl: state.ttlMs }),
        (err: Error) => cb(err),
      );
    }
    child(routeOptions: object): LimitsStore {
      const options = routeOptions as { routeInfo?: { method?: string; url?: string }; nameSpace?: string };
      const route = options.nameSpace ?? `${options.routeInfo?.method ?? ''} ${options.routeInfo?.url ?? ''}`;
      return new LimitsStore(undefined, `rl:${route}:`);
    }
  };
}
