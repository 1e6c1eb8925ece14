import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { serializeError } from '../plugins/logging.ts';

/**
 * A job definition: `{ name, payload schema, handler }`. Handlers must be safe to run again after a crash
 * (at-least-once); the runner guarantees one claim at a time per job.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  handler(ctx: AppContext, payload: z.infer<S>, job: ClaimedJob): Promise<void>;
  /**
   * How long a claim lasts without a renewal (default DEFAULT_LEASE_MS). The worker renews it every third of
   * it while the job runs, so it bounds how soon a job whose worker died (kill -9) runs again, not how long a
   * job may take.
   */
  leaseMs?: number;
}

/** A claim's lease when the definition names none: a crashed worker's jobs run again after about a minute. */
export const DEFAULT_LEASE_MS = 60_000;

export interface ClaimedJob {
  id: number;
  name: string;
  attempts: number;
  maxAttempts: number;
}

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one pending-or-running job per key; enqueueing again is a no-op (returns null). */
  singletonKey?: string;
  maxAttempts?: number;
  /**
   * With a singletonKey: a job still waiting under the key is moved to the new run time and payload (one
   * statement, instead of cancel + enqueue). A running one is left alone and null is returned.
   */
  replace?: boolean;
  /**
   * Insert through this open transaction instead of the pool, so the job commits (or rolls back) with the
   * caller's rows: a stored message can then never be left without the job that answers it, even when the
   * process dies right after the commit. The runner is woken when the job is due either way.
   */
  executor?: Db | Parameters<Parameters<Db['transaction']>[0]>[0];
}

interface JobRow {
  id: string | number;
  name: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

/**
 * Durable jobs on the `jobs` table. Claims use `FOR UPDATE SKIP LOCKED`, so several server processes
 * sharing one PostgreSQL each take different jobs, and a job survives a restart because it lives in the
 * database. Same SQL on PGlite and PostgreSQL.
 */
export class JobRunner {
  private readonly definitions = new Map<string, JobDefinition>();
  private timer: { kind: 'timeout'; handle: NodeJS.Timeout } | { kind: 'immediate'; handle: NodeJS.Immediate } | null = null;
  /** When the timer fires (ms since epoch, this process's clock). */
  private timerAt = Infinity;
  /** The earliest wake-up asked for while a drain was running; honoured when it ends. */
  private wakeAfterDrain = Infinity;
  private running: Promise<void> | null = null;
  private stopped = true;
  private ctx: AppContext | null = null;

  constructor(private readonly options: { pollMs?: number; batchSize?: number } = {}) {}

  register(definition: JobDefinition): void {
    if (definition.leaseMs !== undefined && !(Number.isInteger(definition.leaseMs) && definition.leaseMs > 0)) {
      throw new Error(`Job ${definition.name}: leaseMs must be a positive whole number of milliseconds`);
    }
    this.definitions.set(definition.name, definition as JobDefinition);
  }

  bind(ctx: AppContext): void {
    this.ctx = ctx;
  }

  /** Adds a job; returns its id, or null when a job with the same singletonKey is already waiting. */
  async enqueue(name: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | null> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown job ${name}`);
    const parsed = definition.payload.parse(payload);
    const values = {
      name,
      payload: parsed as object,
      runAt: options.runAt ?? new Date(),
      singletonKey: options.singletonKey ?? null,
      maxAttempts: options.maxAttempts ?? 5,
    };
    const insert = (options.executor ?? this.context().db).insert(jobs).values(values);
    const rows = await (options.replace && options.singletonKey
      ? insert.onConflictDoUpdate({
          target: jobs.singletonKey,
          targetWhere: sql`status in ('pending', 'running')`,
          set: { name, payload: values.payload, runAt: values.runAt, maxAttempts: values.maxAttempts, attempts: 0, lastError: null },
          setWhere: sql`${jobs.status} = 'pending'`,
        })
      : insert.onConflictDoNothing()
    ).returning({ id: jobs.id });
    const id = rows[0]?.id ?? null;
    // Due now: run at once. Due later (a debounce window): wake when it is due, not at the next poll.
    if (id !== null) this.wakeAt(options.runAt ? options.runAt.getTime() : Date.now());
    return id;
  }

  /**
   * A job was inserted by a statement of its own (e.g. together with the row it processes, see
   * channels/inbox.ts): run due jobs now instead of at the next poll.
   */
  wake(): void {
    this.wakeAt(Date.now());
  }

  /**
   * Cancels waiting jobs with this singleton key (e.g. a follow-up made obsolete by a reply); with an
   * `executor` (an open transaction) only if that transaction commits.
   */
  async cancel(singletonKey: string, executor?: EnqueueOptions['executor']): Promise<void> {
    await (executor ?? this.context().db).execute(
      sql`update jobs set status = 'done', finished_at = now(), last_error = 'cancelled'
          where singleton_key = ${singletonKey} and status = 'pending'`,
    );
  }

  /**
   * Marks a running job done from inside its own handler, so the handler can then enqueue its successor
   * under the same singletonKey (which is taken while the job is pending or running). The runner's own
   * "done" update afterwards is a no-op. With an `executor` (an open transaction) the job is done only if that
   * transaction commits, e.g. together with the successor it enqueues there.
   */
  async complete(jobId: number, executor?: EnqueueOptions['executor']): Promise<void> {
    await (executor ?? this.context().db).execute(
      sql`update jobs set status = 'done', finished_at = now(), last_error = null where id = ${jobId} and status = 'running'`,
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the batch in progress to finish (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.running;
  }

  /** Runs every job that is due now, until none is left. Used by tests (the poll loop uses `runUntilIdleOrStopped`). */
  async drain(): Promise<number> {
    return this.runBatches(() => false);
  }

  /**
   * The poll loop's drain: batch after batch until none is due, or until stop() was called. Without the stop
   * check a graceful shutdown waited for the whole backlog (tens of thousands of stored webhooks after a burst)
   * instead of the batch in progress; what is left stays pending for the next process.
   */
  private runUntilIdleOrStopped(): Promise<number> {
    return this.runBatches(() => this.stopped);
  }

  private async runBatches(stopRequested: () => boolean): Promise<number> {
    let total = 0;
    for (;;) {
      if (stopRequested()) return total;
      const done = await this.runBatch();
      total += done;
      if (done === 0) return total;
    }
  }

  /**
   * Makes the poll loop run at `at` (or earlier). While a drain runs, the wake-up is kept for when it ends:
   * a job enqueued just after the drain's last claim would otherwise wait for the next poll.
   */
  private wakeAt(at: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeAfterDrain = Math.min(this.wakeAfterDrain, at);
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.schedule(Math.max(0, at - Date.now()));
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.clearTimer();
    this.timerAt = Date.now() + delay;
    // setTimeout(0) waits at least 1 ms (more on a busy loop); a job due now runs right after this tick.
    const run = () => {
      this.timer = null;
      this.timerAt = Infinity;
      this.wakeAfterDrain = Infinity;
      let nextDueInMs = Infinity;
      this.running = this.runUntilIdleOrStopped()
        .then(async () => {
          nextDueInMs = await this.msUntilNextPending();
        })
        .catch((err) => this.ctx?.log.error({ err }, 'job runner poll failed'))
        .finally(() => {
          this.running = null;
          const pollMs = this.options.pollMs ?? 500;
          const wake = Math.min(pollMs, nextDueInMs, this.wakeAfterDrain - Date.now());
          this.wakeAfterDrain = Infinity;
          this.schedule(Math.max(0, wake));
        });
    };
    this.timer = delay <= 0 ? { kind: 'immediate', handle: setImmediate(run) } : { kind: 'timeout', handle: setTimeout(run, delay) };
  }

  private clearTimer(): void {
    if (!this.timer) return;
    if (this.timer.kind === 'immediate') clearImmediate(this.timer.handle);
    else clearTimeout(this.timer.handle);
    this.timer = null;
  }

  /**
   * Milliseconds until the earliest pending job is due, from any process (computed by the database, so
   * the two clocks need not agree); Infinity when none is pending.
   */
  private async msUntilNextPending(): Promise<number> {
    const names = [...this.definitions.keys()];
    if (names.length === 0) return Infinity;
    const result = await this.context().db.execute(sql`
      select extract(epoch from (min(run_at) - now())) * 1000 as ms from jobs
      where status = 'pending' and name in (${sql.join(names.map((n) => sql`${n}`), sql`, `)})`);
    const ms = (result as unknown as { rows: { ms: string | number | null }[] }).rows[0]?.ms;
    // At least a few ms: a due job another process is claiming right now must not make this loop spin.
    return ms == null ? Infinity : Math.max(5, Number(ms));
  }

  private async runBatch(): Promise<number> {
    const ctx = this.context();
    const names = [...this.definitions.keys()];
    if (names.length === 0) return 0;
    // Each row is locked for its own definition's lease; the renewals below keep it while the batch works.
    // RETURNING follows no order: the batch runs in the order it was picked (due first, then as queued).
    const result = await ctx.db.execute(sql`
      with claimed as (
        update jobs set status = 'running', attempts = attempts + 1,
          locked_until = now() + (${this.leaseOfRow()} * interval '1 millisecond')
        where id in (
          select id from jobs
          where run_at <= now()
            and (status = 'pending' or (status = 'running' and locked_until < now()))
            and name in (${sql.join(names.map((n) => sql`${n}`), sql`, `)})
          order by run_at, id
          limit ${this.options.batchSize ?? 10}
          for update skip locked
        )
        returning id, name, payload, attempts, max_attempts, run_at
      )
      select id, name, payload, attempts, max_attempts from claimed order by run_at, id`);
    const rows = (result as unknown as { rows: JobRow[] }).rows;
    if (rows.length === 0) return 0;
    // The whole batch is claimed at once but runs one job after the other: every claim not yet finished is
    // renewed, or the last jobs of a slow batch would look abandoned to another instance before they start.
    const claims = new Map(rows.map((row) => [Number(row.id), row.attempts]));
    const renewal = this.renewLeases(ctx, claims, Math.min(...rows.map((row) => this.leaseOf(row.name))));
    try {
      for (const row of rows) {
        await this.runOne(ctx, row);
        claims.delete(Number(row.id));
      }
    } finally {
      renewal.stop();
    }
    return rows.length;
  }

  private leaseOf(name: string): number {
    return this.definitions.get(name)?.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** The lease of the row's job, in ms, as SQL over the row's `name` column. */
  private leaseOfRow(): SQL {
    const custom = [...this.definitions.values()].filter((d) => d.leaseMs !== undefined);
    if (custom.length === 0) return sql`${DEFAULT_LEASE_MS}::int`;
    const cases = custom.map((d) => sql`when ${d.name} then ${d.leaseMs}::int`);
    return sql`(case name ${sql.join(cases, sql` `)} else ${DEFAULT_LEASE_MS}::int end)`;
  }

  /**
   * Renews the leases of this batch's unfinished claims every third of the shortest lease, so a job that runs
   * longer than its lease is not taken over by another instance while it still runs. A claim is identified by
   * (id, attempts): a job this worker lost (it stalled past the lease and another one claimed it again) is
   * left to its new owner. A failed renewal is logged; the next one tries again.
   */
  private renewLeases(ctx: AppContext, claims: Map<number, number>, shortestLeaseMs: number): { stop(): void } {
    let inFlight = false;
    const renew = async () => {
      if (inFlight || claims.size === 0) return;
      inFlight = true;
      try {
        const owned = [...claims].map(([id, attempts]) => sql`(${id}::bigint, ${attempts}::int)`);
        await ctx.db.execute(sql`
          update jobs set locked_until = now() + (${this.leaseOfRow()} * interval '1 millisecond')
          where status = 'running' and (id, attempts) in (${sql.join(owned, sql`, `)})`);
      } catch (err) {
        ctx.log.warn({ err, jobs: [...claims.keys()] }, 'job lease renewal failed');
      } finally {
        inFlight = false;
      }
    };
    const timer = setInterval(() => void renew(), Math.max(1, Math.floor(shortestLeaseMs / 3)));
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  private async runOne(ctx: AppContext, row: JobRow): Promise<void> {
    const id = Number(row.id);
    const definition = this.definitions.get(row.name)!;
    const job: ClaimedJob = { id, name: row.name, attempts: row.attempts, maxAttempts: row.max_attempts };
    try {
      const payload = definition.payload.parse(row.payload);
      await definition.handler(ctx, payload, job);
      // Only this claim's row (same attempts): a worker that lost its lease leaves the job to its new owner.
      await ctx.db.execute(
        sql`update jobs set status = 'done', finished_at = now(), last_error = null where id = ${id} and attempts = ${row.attempts}`,
      );
    } catch (err) {
      // A failed query's own message lists every parameter value (tokens, message texts): keep the statement only.
      const message = err instanceof Error ? String((serializeError(err) as { message?: unknown }).message ?? err.message) : String(err);
      const final = row.attempts >= row.max_attempts;
      ctx.log.warn({ err, job: row.name, id, attempt: row.attempts, final }, 'job failed');
      // Exponential backoff: 1 s, 4 s, 16 s … capped at 10 minutes.
      const backoffMs = Math.min(600_000, 1000 * 4 ** (row.attempts - 1));
      await ctx.db.execute(sql`
        update jobs set status = ${final ? 'failed' : 'pending'}, last_error = ${message.slice(0, 2000)},
          run_at = now() + (${backoffMs}::int * interval '1 millisecond'),
          finished_at = ${final ? sql`now()` : sql`null`}
        where id = ${id} and attempts = ${row.attempts}`);
    }
  }

  private context(): AppContext {
    if (!this.ctx) throw new Error('JobRunner used before bind(ctx)');
    return this.ctx;
  }
}
