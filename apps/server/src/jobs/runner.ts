import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { serializeError } from '../plugins/logging.ts';

/**
 * What a job handler receives: the application context. Declared empty here and filled in by context.ts
 * (`declare module`), so the runner sits below the context in the import graph instead of in a circle with it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobContext {}

/**
 * Name → payload of every job, filled in by jobs/index.ts from its registry (`declare module`): enqueue is
 * type-checked against it while the runner imports none of the job definitions.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobPayloads {}

/**
 * A job definition: `{ name, payload schema, handler }`. Handlers must be safe to run again after a crash
 * (at-least-once); the runner guarantees one claim at a time per job.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  handler(ctx: JobContext, payload: z.infer<S>, job: ClaimedJob): Promise<void>;
  /**
   * How long a claim lasts without a renewal (default DEFAULT_LEASE_MS). The worker renews it every third of
   * it while the job runs, so it bounds how soon a job whose worker died (kill -9) runs again, not how long a
   * job may take.
   */
  leaseMs?: number;
  /**
   * Waits on a slow outside service (an LLM, a CRM, a recording download). All slow jobs together take at
   * most `concurrency - reserved` of a process's slots, so deliveries, inbound webhooks and a person's reply
   * always find a free slot while every turn waits on its model.
   */
  slow?: boolean;
  /**
   * At most one of these runs at a time in this process, oldest first: inbound webhook processing, so a
   * backlog of one prospect's messages (redelivered after an outage, say) is stored in the order it came,
   * not in whatever order parallel jobs happen to commit.
   */
  serial?: boolean;
}

/** A claim's lease when the definition names none: a crashed worker's jobs run again after about a minute. */
export const DEFAULT_LEASE_MS = 60_000;
/** Jobs one process runs at once when the caller names no number (config JOB_CONCURRENCY). */
export const DEFAULT_CONCURRENCY = 256;
/** Rows one claim takes at most: small claims leave the rest of a backlog to other (idle) instances. */
const MAX_CLAIM = 8;

export interface ClaimedJob {
  id: number;
  name: string;
  /** This claim's attempt number: with the id, what identifies the claim (see complete()). */
  attempts: number;
  maxAttempts: number;
}

/**
 * Thrown by a handler that cannot run yet for a reason that is not a failure (e.g. the conversation is busy
 * with another turn): the job goes back to pending after `delayMs` without counting an attempt.
 */
export class JobDeferredError extends Error {
  /**
   * `stillWaiting`, when given, is asked once the job is parked (committed): false means what it waited for
   * ended meanwhile — e.g. a predecessor finished between the handler's look and the park, so that
   * predecessor's wake-up found this job still running — and the job runs at once instead of after `delayMs`.
   */
  constructor(
    message: string,
    readonly delayMs: number,
    readonly stillWaiting?: () => Promise<boolean>,
  ) {
    super(message);
    this.name = 'JobDeferredError';
  }
}

/** complete() on a claim this worker no longer holds (its lease ran out and another worker took the job). */
export class JobClaimLostError extends Error {
  constructor(job: Pick<ClaimedJob, 'id' | 'attempts'>) {
    super(`Job ${job.id} (attempt ${job.attempts}) is no longer held by this worker.`);
    this.name = 'JobClaimLostError';
  }
}

import type { Executor } from '../db/executor.ts';

export type { Executor };

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
  executor?: Executor;
}

interface JobRow {
  id: string | number;
  name: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

interface Running {
  name: string;
  slow: boolean;
  attempts: number;
  done: Promise<void>;
}

export interface JobRunnerOptions {
  pollMs?: number;
  /** Jobs run at the same time by this process (JOB_CONCURRENCY). */
  concurrency?: number;
}

/**
 * Durable jobs on the `jobs` table, run concurrently (docs/architecture.md "Job runner"). Claims use
 * `FOR UPDATE SKIP LOCKED` and take only as many rows as there are free slots, so several server processes
 * sharing one PostgreSQL each take different jobs and an idle one takes what a busy one cannot; a job
 * survives a restart because it lives in the database. Same SQL on PGlite and PostgreSQL.
 *
 * `P` maps each job name to its payload (the definitions in jobs/index.ts); enqueue is typed against it.
 */
export class JobRunner<P extends object = JobPayloads> {
  private readonly definitions = new Map<string, JobDefinition>();
  private timer: { kind: 'timeout'; handle: NodeJS.Timeout } | { kind: 'immediate'; handle: NodeJS.Immediate } | null = null;
  /** When the timer fires (ms since epoch, this process's clock). */
  private timerAt = Infinity;
  /** The earliest wake-up asked for while a claim was in progress; honoured when it ends. */
  private wakeAfterPump = Infinity;
  private pumping: Promise<void> | null = null;
  private stopped = true;
  private ctx: JobContext | null = null;
  private readonly inFlight = new Map<number, Running>();
  private heartbeat: NodeJS.Timeout | null = null;
  private renewing = false;
  readonly concurrency: number;
  /** Slots slow jobs (LLM turns) may take together; the rest is kept for the quick ones. */
  readonly slowCapacity: number;

  constructor(private readonly options: JobRunnerOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    const reserved = this.concurrency <= 1 ? 0 : Math.max(1, Math.floor(this.concurrency / 4));
    this.slowCapacity = this.concurrency - reserved;
  }

  register(definition: JobDefinition): void {
    if (definition.leaseMs !== undefined && !(Number.isInteger(definition.leaseMs) && definition.leaseMs > 0)) {
      throw new Error(`Job ${definition.name}: leaseMs must be a positive whole number of milliseconds`);
    }
    this.definitions.set(definition.name, definition as JobDefinition);
  }

  bind(ctx: JobContext): void {
    this.ctx = ctx;
  }

  /**
   * THE way to add a job (there is no other insert into `jobs`): the payload is checked against the job's
   * schema, and the runner is woken when the job is due. Returns its id, or null when a job with the same
   * singletonKey is already waiting.
   */
  async enqueue<N extends keyof P & string>(name: N, payload: P[N], options: EnqueueOptions = {}): Promise<number | null> {
    const parsed = this.parse(name, payload);
    const values = {
      name,
      payload: parsed,
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

  /** Many jobs of one name in one statement (e.g. a webhook burst's processing jobs); no singleton keys. */
  async enqueueMany<N extends keyof P & string>(
    name: N,
    payloads: P[N][],
    options: Omit<EnqueueOptions, 'singletonKey' | 'replace'> = {},
  ): Promise<number[]> {
    if (payloads.length === 0) return [];
    const runAt = options.runAt ?? new Date();
    const values = payloads.map((payload) => ({ name, payload: this.parse(name, payload), runAt, maxAttempts: options.maxAttempts ?? 5 }));
    const rows = await (options.executor ?? this.context().db).insert(jobs).values(values).returning({ id: jobs.id });
    this.wakeAt(runAt.getTime());
    return rows.map((row) => row.id);
  }

  private parse(name: string, payload: unknown): object {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown job ${name}`);
    return definition.payload.parse(payload) as object;
  }

  /**
   * A job was committed by a transaction the runner did not see commit: run due jobs now instead of at the
   * next poll.
   */
  wake(): void {
    this.wakeAt(Date.now());
  }

  /**
   * Cancels waiting jobs with this singleton key (e.g. a follow-up made obsolete by a reply); with an
   * `executor` (an open transaction) only if that transaction commits.
   */
  async cancel(singletonKey: string, executor?: Executor): Promise<void> {
    await (executor ?? this.context().db).execute(
      sql`update jobs set status = 'done', finished_at = now(), last_error = 'cancelled'
          where singleton_key = ${singletonKey} and status = 'pending'`,
    );
  }

  /**
   * Marks a running job done from inside its own handler, so the handler can then enqueue its successor
   * under the same singletonKey (which is taken while the job is pending or running). The runner's own
   * "done" update afterwards is a no-op. With an `executor` (an open transaction) the job is done only if that
   * transaction commits, e.g. together with the successor it enqueues there (see completeAndEnqueue).
   *
   * Fenced by the claim: a worker whose lease ran out while it worked (another worker claimed the job again,
   * attempts went up) gets JobClaimLostError, so its transaction rolls back with whatever it would have
   * committed along, and the job stays its new owner's.
   */
  async complete(job: Pick<ClaimedJob, 'id' | 'attempts'>, executor?: Executor): Promise<void> {
    const result = await (executor ?? this.context().db).execute(
      sql`update jobs set status = 'done', finished_at = now(), last_error = null
          where id = ${job.id} and attempts = ${job.attempts} and status = 'running' returning id`,
    );
    if ((result as unknown as { rows: unknown[] }).rows.length === 0) throw new JobClaimLostError(job);
  }

  /**
   * Completes a running job and queues its successor in ONE transaction: never a finished job without its
   * successor, never a successor next to a job that will run again. E.g. a delivery retry at a later time.
   */
  async completeAndEnqueue<N extends keyof P & string>(
    job: Pick<ClaimedJob, 'id' | 'attempts'>,
    name: N,
    payload: P[N],
    options: Omit<EnqueueOptions, 'executor'> = {},
  ): Promise<number | null> {
    return this.context().db.transaction(async (tx) => {
      await this.complete(job, tx);
      return this.enqueue(name, payload, { ...options, executor: tx });
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops claiming and waits for the jobs in progress to finish (graceful shutdown); the rest stays pending. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.pumping;
    await Promise.all([...this.inFlight.values()].map((running) => running.done));
  }

  /** Jobs of this process running right now. */
  get running(): number {
    return this.inFlight.size;
  }

  /**
   * Runs every job that is due now, concurrently up to the limits, until none is due and none runs. Used by
   * tests and benchmarks without start(); answers how many jobs ran.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { claimed, heldBack } = await this.fill();
      total += claimed;
      if (this.inFlight.size === 0) {
        // A serial job held back for one that has finished since: its turn now.
        if (claimed === 0 && !heldBack) return total;
        continue;
      }
      if (claimed > 0 && this.freeSlots() > 0) continue;
      await Promise.race([...this.inFlight.values()].map((running) => running.done));
    }
  }

  private freeSlots(): number {
    return this.concurrency - this.inFlight.size;
  }

  /**
   * Claims due jobs for the free slots (quick ones first, then slow ones within their share) and starts them.
   * `full`: a claim got every row it asked for, so more may be waiting. `heldBack`: a serial definition was
   * not claimed for because one of its jobs was running.
   */
  private async fill(): Promise<{ claimed: number; full: boolean; heldBack: boolean }> {
    const ctx = this.context();
    let claimed = 0;
    let full = false;
    const all = [...this.definitions.values()];
    const running = new Set([...this.inFlight.values()].map((r) => r.name));
    const quick = all.filter((d) => !d.slow && !d.serial).map((d) => d.name);
    const slow = all.filter((d) => d.slow && !d.serial).map((d) => d.name);
    const groups: (readonly [string[], boolean, number])[] = [
      [quick, false, MAX_CLAIM],
      [slow, true, MAX_CLAIM],
      // One claim of one row per serial name that has nothing running here.
      ...all.filter((d) => d.serial && !running.has(d.name)).map((d) => [[d.name], d.slow === true, 1] as [string[], boolean, number]),
    ];
    const heldBack = all.some((d) => d.serial && running.has(d.name));
    for (const [names, isSlow, most] of groups) {
      if (names.length === 0) continue;
      let free = this.freeSlots();
      if (isSlow) free = Math.min(free, this.slowCapacity - [...this.inFlight.values()].filter((r) => r.slow).length);
      const limit = Math.min(free, most);
      if (limit <= 0) continue;
      const rows = await this.claim(ctx, names, limit);
      for (const row of rows) this.launch(ctx, row);
      claimed += rows.length;
      if (rows.length === limit) full = true;
    }
    return { claimed, full, heldBack };
  }

  private async claim(ctx: JobContext, names: string[], limit: number): Promise<JobRow[]> {
    // Each row is locked for its own definition's lease; the heartbeat below keeps it while the job runs.
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
          limit ${limit}
          for update skip locked
        )
        returning id, name, payload, attempts, max_attempts, run_at
      )
      select id, name, payload, attempts, max_attempts from claimed order by run_at, id`);
    return (result as unknown as { rows: JobRow[] }).rows;
  }

  private launch(ctx: JobContext, row: JobRow): void {
    const id = Number(row.id);
    const definition = this.definitions.get(row.name)!;
    const running: Running = { name: row.name, slow: definition.slow === true, attempts: row.attempts, done: Promise.resolve() };
    this.inFlight.set(id, running);
    this.startHeartbeat();
    running.done = this.runOne(ctx, row)
      .catch((err) => ctx.log.error({ err, job: row.name, id }, 'job bookkeeping failed'))
      .finally(() => {
        this.inFlight.delete(id);
        if (this.inFlight.size === 0) this.stopHeartbeat();
        // A slot is free: take the next due job now.
        if (!this.stopped) this.wake();
      });
  }

  /**
   * Makes the poll loop run at `at` (or earlier). While a claim is in progress the wake-up is kept for when
   * it ends: a job enqueued just after its query would otherwise wait for the next poll.
   */
  private wakeAt(at: number): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.wakeAfterPump = Math.min(this.wakeAfterPump, at);
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.schedule(Math.max(0, at - Date.now()));
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.clearTimer();
    this.timerAt = Date.now() + delay;
    const run = () => {
      this.timer = null;
      this.timerAt = Infinity;
      this.pump();
    };
    this.timer = delay <= 0 ? { kind: 'immediate', handle: setImmediate(run) } : { kind: 'timeout', handle: setTimeout(run, delay) };
  }

  /** One round of the poll loop: fill the free slots (again while claims come back full), then sleep. */
  private pump(): void {
    if (this.stopped || this.pumping) return;
    this.wakeAfterPump = Infinity;
    let nextInMs = this.options.pollMs ?? 500;
    this.pumping = (async () => {
      for (;;) {
        const { full } = await this.fill();
        if (!full || this.stopped || this.freeSlots() === 0) break;
      }
      if (this.freeSlots() > 0) nextInMs = Math.min(nextInMs, await this.msUntilNextPending());
    })()
      .catch((err) => this.ctx?.log.error({ err }, 'job runner poll failed'))
      .finally(() => {
        this.pumping = null;
        const wake = Math.min(nextInMs, this.wakeAfterPump - Date.now());
        this.wakeAfterPump = Infinity;
        this.schedule(Math.max(0, wake));
      });
  }

  private clearTimer(): void {
    if (!this.timer) return;
    if (this.timer.kind === 'immediate') clearImmediate(this.timer.handle);
    else clearTimeout(this.timer.handle);
    this.timer = null;
    this.timerAt = Infinity;
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
   * While jobs run, their leases are renewed every third of the shortest lease among them (one statement for
   * all), so a job that runs longer than its lease is not taken over by another instance while it still runs.
   * A claim is identified by (id, attempts): a job this worker lost (it stalled past the lease and another
   * one claimed it again) is left to its new owner. A failed renewal is logged; the next one tries again.
   */
  private startHeartbeat(): void {
    if (this.heartbeat) return;
    const shortest = Math.min(...[...this.definitions.values()].map((d) => this.leaseOf(d.name)));
    this.heartbeat = setInterval(() => void this.renew(), Math.max(1, Math.floor(shortest / 3)));
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.inFlight.size === 0 || !this.ctx) return;
    this.renewing = true;
    const ctx = this.ctx;
    try {
      const owned = [...this.inFlight].map(([id, running]) => sql`(${id}::bigint, ${running.attempts}::int)`);
      await ctx.db.execute(sql`
        update jobs set locked_until = now() + (${this.leaseOfRow()} * interval '1 millisecond')
        where status = 'running' and (id, attempts) in (${sql.join(owned, sql`, `)})`);
    } catch (err) {
      ctx.log.warn({ err, jobs: [...this.inFlight.keys()] }, 'job lease renewal failed');
    } finally {
      this.renewing = false;
    }
  }

  private async runOne(ctx: JobContext, row: JobRow): Promise<void> {
    const id = Number(row.id);
    const definition = this.definitions.get(row.name)!;
    const job: ClaimedJob = { id, name: row.name, attempts: row.attempts, maxAttempts: row.max_attempts };
    try {
      const payload = definition.payload.parse(row.payload);
      await definition.handler(ctx, payload, job);
      // Only this claim's row (same attempts): a worker that lost its lease leaves the job to its new owner.
      await ctx.db.execute(
        sql`update jobs set status = 'done', finished_at = now(), last_error = null
            where id = ${id} and attempts = ${row.attempts} and status = 'running'`,
      );
    } catch (err) {
      if (err instanceof JobClaimLostError) {
        ctx.log.warn({ job: row.name, id, attempt: row.attempts }, 'job claim lost to another worker; its result was not committed');
        return;
      }
      if (err instanceof JobDeferredError) {
        // Not a failure: back to pending without counting this attempt.
        await ctx.db.execute(sql`
          update jobs set status = 'pending', attempts = attempts - 1, locked_until = null,
            run_at = now() + (${Math.max(0, Math.round(err.delayMs))}::int * interval '1 millisecond')
          where id = ${id} and attempts = ${row.attempts} and status = 'running'`);
        ctx.log.debug({ job: row.name, id, reason: err.message }, 'job deferred');
        if (err.stillWaiting && !(await err.stillWaiting())) {
          await ctx.db.execute(sql`update jobs set run_at = now() where id = ${id} and status = 'pending' and run_at > now()`);
          this.wake();
        }
        return;
      }
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
        where id = ${id} and attempts = ${row.attempts} and status = 'running'`);
    }
  }

  private context(): JobContext {
    if (!this.ctx) throw new Error('JobRunner used before bind(ctx)');
    return this.ctx;
  }
}
