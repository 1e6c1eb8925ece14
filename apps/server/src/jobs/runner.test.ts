import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { DEFAULT_LEASE_MS, type JobDefinition, JobClaimLostError, JobDeferredError, JobRunner, type JobRunnerOptions } from './runner.ts';

/**
 * Two workers on one database, as two server instances: each is a JobRunner of its own bound to a context of
 * its own. Worker A's database can be cut off ("killed"): from then on every statement it sends fails, as
 * for a process that died with kill -9 — its claim is left behind and nobody renews it.
 */
const t = useTestApp();

type TestRunner = JobRunner<Record<string, any>>;

interface Worker {
  runner: TestRunner;
  ctx: AppContext;
  kill(): void;
  revive(): void;
}

const workers: Worker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.revive();
    await worker.runner.stop();
  }
});

function worker(definitions: JobDefinition[], options: JobRunnerOptions = {}): Worker {
  let dead = false;
  const db = new Proxy(t.ctx.db, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return (query: Parameters<Db['execute']>[0]) => (dead ? Promise.reject(new Error('worker killed')) : target.execute(query));
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const runner: TestRunner = new JobRunner<Record<string, any>>(options);
  const ctx: AppContext = { ...t.ctx, db, jobs: runner as unknown as AppContext['jobs'] };
  for (const definition of definitions) runner.register(definition);
  runner.bind(ctx);
  const created = { runner, ctx, kill: () => (dead = true), revive: () => (dead = false) };
  workers.push(created);
  return created;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function jobRow(id: number) {
  const result = await t.ctx.db.execute(sql`
    select status, attempts, last_error, locked_until, locked_until > now() as locked from jobs where id = ${id}`);
  return (result as unknown as { rows: { status: string; attempts: number; last_error: string | null; locked_until: Date | string; locked: boolean }[] }).rows[0];
}

/** Milliseconds from now until the row's lease ends, as the database sees it. */
async function leaseLeftMs(id: number): Promise<number> {
  const result = await t.ctx.db.execute(sql`select extract(epoch from (locked_until - now())) * 1000 as ms from jobs where id = ${id}`);
  return Number((result as unknown as { rows: { ms: string | number }[] }).rows[0].ms);
}

describe('job leases', () => {
  it("lock each claim for its own definition's lease (the default when it names none)", async () => {
    const seen: Record<string, number> = {};
    const recordLease: JobDefinition['handler'] = async (_ctx, _payload, job) => {
      seen[job.name] = await leaseLeftMs(job.id);
    };
    const a = worker([
      { name: 'test.lease-hour', payload: z.object({}), leaseMs: 3_600_000, handler: recordLease },
      { name: 'test.lease-default', payload: z.object({}), handler: recordLease },
    ]);
    await a.runner.enqueue('test.lease-hour', {});
    await a.runner.enqueue('test.lease-default', {});
    await a.runner.drain();
    // The claim's now() is a moment before the handler's: the lease left is just under the configured one.
    expect(seen['test.lease-hour']).toBeLessThanOrEqual(3_600_000);
    expect(seen['test.lease-hour']).toBeGreaterThan(3_600_000 - 30_000);
    expect(seen['test.lease-default']).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
    expect(seen['test.lease-default']).toBeGreaterThan(DEFAULT_LEASE_MS - 30_000);
  });

  it('refuse a lease that is not a positive whole number of milliseconds', () => {
    const runner = new JobRunner();
    expect(() => runner.register({ name: 'test.bad-lease', payload: z.object({}), leaseMs: 0, async handler() {} })).toThrow(/leaseMs/);
  });

  it('run a job again after its own lease when its worker died mid-run, and ignore the dead worker afterwards', async () => {
    const startedOnA = deferred();
    const ranOnB = deferred();
    const releaseA = deferred();
    let a!: Worker;
    const definition: JobDefinition = {
      name: 'test.crash',
      payload: z.object({}),
      leaseMs: 300,
      async handler(ctx) {
        if (ctx === a.ctx) {
          a.kill();
          startedOnA.resolve();
          await releaseA.promise;
          throw new Error('the dead worker wakes up and fails');
        }
        ranOnB.resolve();
      },
    };
    a = worker([definition]);
    const b = worker([definition], { pollMs: 20 });
    const id = (await a.runner.enqueue('test.crash', {}))!;
    const drainA = a.runner.drain().catch(() => undefined);
    await startedOnA.promise;

    b.runner.start();
    // With a fixed 5-minute lock this never happens within the test's time.
    await ranOnB.promise;
    await b.runner.stop();
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, last_error: null });

    // The old claim (attempts 1) is not the row's claim any more: its failure must not send the job back to pending.
    a.revive();
    releaseA.resolve();
    await drainA;
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, last_error: null });
  });

  it("keep a long job claimed past its lease, while an idle instance takes the queued job it has no slot for", async () => {
    const longStarted = deferred<number>();
    const releaseLong = deferred();
    const runs: string[] = [];
    let a!: Worker;
    const definition: JobDefinition = {
      name: 'test.long',
      payload: z.object({ label: z.string() }),
      leaseMs: 300,
      async handler(ctx, { label }) {
        runs.push(`${ctx === a.ctx ? 'a' : 'b'}:${label}`);
        if (label === 'slow') {
          const [{ ends }] = (
            (await t.ctx.db.execute(sql`select locked_until as ends from jobs where name = 'test.long' and payload->>'label' = 'slow'`)) as unknown as {
              rows: { ends: Date | string }[];
            }
          ).rows;
          longStarted.resolve(new Date(ends).getTime());
          await releaseLong.promise;
        }
      },
    };
    a = worker([definition], { concurrency: 1 });
    const b = worker([definition]);
    const slow = (await a.runner.enqueue('test.long', { label: 'slow' }))!;
    const next = (await a.runner.enqueue('test.long', { label: 'next' }))!;
    const drainA = a.runner.drain();
    const firstLeaseEnd = await longStarted.promise;
    // A has one slot, busy: it claimed only the job it runs. The other one is still there for anyone.
    expect(await jobRow(next)).toMatchObject({ status: 'pending', attempts: 0 });

    // Wait (on the database's clock) until the first lease is over; the heartbeat must have kept the claim.
    await vi.waitFor(
      async () => {
        const result = await t.ctx.db.execute(sql`select now() > ${new Date(firstLeaseEnd).toISOString()}::timestamptz as over`);
        expect((result as unknown as { rows: { over: boolean }[] }).rows[0].over).toBe(true);
      },
      { timeout: 10_000, interval: 50 },
    );
    // B, idle, runs the queued job, and not the one A is running.
    expect(await b.runner.drain()).toBe(1);
    expect(await jobRow(slow)).toMatchObject({ status: 'running', attempts: 1, locked: true });
    expect(await jobRow(next)).toMatchObject({ status: 'done', attempts: 1 });

    releaseLong.resolve();
    await drainA;
    expect(runs).toEqual(['a:slow', 'b:next']);
    expect(await jobRow(slow)).toMatchObject({ status: 'done', attempts: 1 });
  });
});

describe('concurrency', () => {
  it('runs claimed jobs at the same time: each of these waits until all of them have started', async () => {
    const count = 6;
    const allStarted = deferred();
    let started = 0;
    const a = worker([
      {
        name: 'test.together',
        payload: z.object({ n: z.number() }),
        async handler() {
          started += 1;
          if (started === count) allStarted.resolve();
          // One after the other (the old runner), the first job would wait here forever.
          await allStarted.promise;
        },
      },
    ]);
    for (let n = 0; n < count; n++) await a.runner.enqueue('test.together', { n });
    expect(await a.runner.drain()).toBe(count);
  });

  it('runs a serial job (inbound webhooks) one at a time, oldest first, beside other jobs', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const otherRan = deferred();
    const a = worker([
      {
        name: 'test.serial',
        serial: true,
        payload: z.object({ n: z.number() }),
        async handler(_ctx, { n }) {
          running += 1;
          most = Math.max(most, running);
          order.push(n);
          // The first one waits for a job of another name: a serial job keeps only its own kind waiting.
          if (n === 0) await otherRan.promise;
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
        },
      },
      { name: 'test.other', payload: z.object({}), async handler() { otherRan.resolve(); } },
    ]);
    for (let n = 0; n < 5; n++) await a.runner.enqueue('test.serial', { n });
    await a.runner.enqueue('test.other', {});
    expect(await a.runner.drain()).toBe(6);
    expect(most).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('claims only as many jobs as it has free slots', async () => {
    const release = deferred();
    const started: number[] = [];
    const twoStarted = deferred();
    const a = worker(
      [
        {
          name: 'test.slots',
          payload: z.object({ n: z.number() }),
          async handler(_ctx, { n }) {
            started.push(n);
            if (started.length === 2) twoStarted.resolve();
            await release.promise;
          },
        },
      ],
      { concurrency: 2 },
    );
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) ids.push((await a.runner.enqueue('test.slots', { n }))!);
    const drained = a.runner.drain();
    await twoStarted.promise;
    const statuses = await Promise.all(ids.map(async (id) => (await jobRow(id)).status));
    expect(statuses.filter((s) => s === 'running')).toHaveLength(2);
    expect(statuses.filter((s) => s === 'pending')).toHaveLength(3);
    release.resolve();
    expect(await drained).toBe(5);
  });

  it('keeps slots for quick jobs (deliveries, webhooks) while slow ones (LLM turns) wait', async () => {
    const releaseSlow = deferred();
    const slowStarted: number[] = [];
    const threeSlow = deferred();
    const allSlowDone = deferred();
    let slowDone = 0;
    const quickRan = deferred<number>();
    const a = worker(
      [
        {
          name: 'test.slow-turn',
          slow: true,
          payload: z.object({ n: z.number() }),
          async handler(_ctx, { n }) {
            slowStarted.push(n);
            if (slowStarted.length === 3) threeSlow.resolve();
            await releaseSlow.promise;
            if (++slowDone === 6) allSlowDone.resolve();
          },
        },
        {
          name: 'test.quick-delivery',
          payload: z.object({}),
          async handler() {
            quickRan.resolve(slowStarted.length);
          },
        },
      ],
      { concurrency: 4 },
    );
    expect(a.runner.slowCapacity).toBe(3);
    const slowIds: number[] = [];
    for (let n = 0; n < 6; n++) slowIds.push((await a.runner.enqueue('test.slow-turn', { n }))!);
    a.runner.start();
    await threeSlow.promise;
    // Every slow job is due and waiting, yet the fourth slot stays free for a quick job.
    await a.runner.enqueue('test.quick-delivery', {});
    expect(await quickRan.promise).toBe(3);
    const statuses = await Promise.all(slowIds.map(async (id) => (await jobRow(id)).status));
    expect(statuses.filter((s) => s === 'running')).toHaveLength(3);
    expect(statuses.filter((s) => s === 'pending')).toHaveLength(3);
    releaseSlow.resolve();
    await allSlowDone.promise;
    await a.runner.stop();
    const after = await Promise.all(slowIds.map(async (id) => (await jobRow(id)).status));
    expect(after.every((s) => s === 'done')).toBe(true);
  });
});

describe('claims', () => {
  it("fence a handler's completion: a worker that lost its claim cannot complete the job nor commit its successor", async () => {
    const startedOnA = deferred<{ id: number; attempts: number }>();
    const releaseA = deferred();
    const startedOnB = deferred();
    const releaseB = deferred();
    let a!: Worker;
    let outcomeOnA: unknown;
    const definition: JobDefinition = {
      name: 'test.fenced',
      payload: z.object({}),
      leaseMs: 300,
      async handler(ctx, _payload, job) {
        if (ctx === a.ctx) {
          a.kill();
          startedOnA.resolve(job);
          await releaseA.promise;
          a.revive();
          outcomeOnA = await a.runner.completeAndEnqueue(job, 'test.successor', {}).catch((err: unknown) => err);
          return;
        }
        startedOnB.resolve();
        await releaseB.promise;
      },
    };
    const successor: JobDefinition = { name: 'test.successor', payload: z.object({}), async handler() {} };
    a = worker([definition, successor], { concurrency: 1 });
    const b = worker([definition, successor], { pollMs: 20 });
    const id = (await a.runner.enqueue('test.fenced', {}))!;
    const drainA = a.runner.drain();
    await startedOnA.promise;
    b.runner.start();
    // A's lease ran out unrenewed: B claimed the job again and is running it.
    await startedOnB.promise;
    expect(await jobRow(id)).toMatchObject({ status: 'running', attempts: 2 });

    releaseA.resolve();
    await drainA;
    expect(outcomeOnA).toBeInstanceOf(JobClaimLostError);
    expect(await jobRow(id)).toMatchObject({ status: 'running', attempts: 2 });
    const successors = await t.ctx.db.execute(sql`select count(*)::int as n from jobs where name = 'test.successor'`);
    expect(Number((successors as unknown as { rows: { n: number }[] }).rows[0].n)).toBe(0);

    releaseB.resolve();
    await b.runner.stop();
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('put a deferred job back without counting an attempt', async () => {
    const a = worker([
      {
        name: 'test.deferred',
        payload: z.object({}),
        async handler() {
          throw new JobDeferredError('not now', 60_000);
        },
      },
    ]);
    const id = (await a.runner.enqueue('test.deferred', {}, { maxAttempts: 1 }))!;
    expect(await a.runner.drain()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
  });

  it('run a deferred job at once when what it waited for ended while it was being parked', async () => {
    let runs = 0;
    const a = worker([
      {
        name: 'test.deferred-recheck',
        payload: z.object({}),
        async handler() {
          runs += 1;
          if (runs > 1) return;
          // What it waits for ended after this look but before the park: only the re-check can see it.
          throw new JobDeferredError('behind another', 60_000, async () => false);
        },
      },
    ]);
    const id = (await a.runner.enqueue('test.deferred-recheck', {}, { maxAttempts: 1 }))!;
    await a.runner.drain();
    await a.runner.drain();
    expect(runs).toBe(2);
    expect(await jobRow(id)).toMatchObject({ status: 'done' });
  });

  it('refuse a payload its definition does not accept, and a job nobody defined', async () => {
    const a = worker([{ name: 'test.typed', payload: z.object({ n: z.number() }), async handler() {} }]);
    await expect(a.runner.enqueue('test.typed', { n: 'one' })).rejects.toThrow();
    await expect(a.runner.enqueue('test.nobody', {})).rejects.toThrow(/Unknown job/);
  });
});

describe('graceful stop', () => {
  it('finishes the jobs in progress and leaves the rest of a backlog pending, instead of working through it', async () => {
    const fourStarted = deferred();
    const release = deferred();
    let ran = 0;
    const a = worker(
      [
        {
          name: 'test.backlog',
          payload: z.object({ n: z.number() }),
          async handler() {
            ran += 1;
            if (ran === 4) fourStarted.resolve();
            await release.promise;
          },
        },
      ],
      { concurrency: 4 },
    );
    for (let n = 0; n < 30; n++) await a.runner.enqueue('test.backlog', { n });
    a.runner.start();
    await fourStarted.promise;
    const stopped = a.runner.stop();
    release.resolve();
    await stopped;
    // The jobs running ran to their end; nothing after them was claimed.
    expect(ran).toBe(4);
    const result = await t.ctx.db.execute(sql`select count(*)::int as pending from jobs where name = 'test.backlog' and status = 'pending'`);
    expect(Number((result as unknown as { rows: { pending: number }[] }).rows[0].pending)).toBe(26);
  });
});
