import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { buildTestApp, type TestApp } from '../test/build-test-app.ts';
import { DEFAULT_LEASE_MS, type JobDefinition, JobRunner } from './runner.ts';

/**
 * Two workers on one database, as two server instances: each is a JobRunner of its own bound to a context of
 * its own. Worker A's database can be cut off ("killed"): from then on every statement it sends fails, as
 * for a process that died with kill -9 — its claim is left behind and nobody renews it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

interface Worker {
  runner: JobRunner;
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

function worker(definitions: JobDefinition[], options: { pollMs?: number } = {}): Worker {
  let dead = false;
  const db = new Proxy(t.ctx.db, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return (query: Parameters<Db['execute']>[0]) => (dead ? Promise.reject(new Error('worker killed')) : target.execute(query));
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const runner = new JobRunner(options);
  const ctx: AppContext = { ...t.ctx, db, jobs: runner };
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

  it('keep a running batch claimed past its lease, so no other instance runs its jobs meanwhile', async () => {
    const longStarted = deferred<number>();
    const releaseLong = deferred();
    const runs: string[] = [];
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
    const a = worker([definition]);
    const b = worker([definition]);
    const slow = (await a.runner.enqueue('test.long', { label: 'slow' }))!;
    const next = (await a.runner.enqueue('test.long', { label: 'next' }))!;
    const drainA = a.runner.drain();
    const firstLeaseEnd = await longStarted.promise;

    // Wait (on the database's clock) until the first lease is over; the renewals must have kept both claims.
    await vi.waitFor(
      async () => {
        const result = await t.ctx.db.execute(sql`select now() > ${new Date(firstLeaseEnd).toISOString()}::timestamptz as over`);
        expect((result as unknown as { rows: { over: boolean }[] }).rows[0].over).toBe(true);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(await b.runner.drain()).toBe(0);
    expect(await jobRow(slow)).toMatchObject({ status: 'running', attempts: 1, locked: true });
    // The second job of the batch has not started yet, and is held as well.
    expect(await jobRow(next)).toMatchObject({ status: 'running', attempts: 1, locked: true });

    releaseLong.resolve();
    await drainA;
    expect(runs).toEqual(['a:slow', 'a:next']);
    expect(await jobRow(slow)).toMatchObject({ status: 'done', attempts: 1 });
    expect(await jobRow(next)).toMatchObject({ status: 'done', attempts: 1 });
  });
});

describe('graceful stop', () => {
  it('finishes the batch in progress and leaves the rest of a backlog pending, instead of working through it', async () => {
    const firstStarted = deferred();
    const release = deferred();
    let ran = 0;
    const a = worker([
      {
        name: 'test.backlog',
        payload: z.object({ n: z.number() }),
        async handler() {
          ran += 1;
          if (ran === 1) {
            firstStarted.resolve();
            await release.promise;
          }
        },
      },
    ]);
    const ids: number[] = [];
    // Three batches' worth (batch size 10).
    for (let n = 0; n < 30; n++) ids.push((await a.runner.enqueue('test.backlog', { n }))!);
    a.runner.start();
    await firstStarted.promise;
    const stopped = a.runner.stop();
    release.resolve();
    await stopped;
    // The claimed batch ran to its end; nothing after it was claimed.
    expect(ran).toBe(10);
    const result = await t.ctx.db.execute(sql`select count(*)::int as pending from jobs where name = 'test.backlog' and status = 'pending'`);
    expect(Number((result as unknown as { rows: { pending: number }[] }).rows[0].pending)).toBe(20);
  });
});

