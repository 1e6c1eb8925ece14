import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobs, sessions } from '../db/schema/index.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { buildUser } from '../test/factories.ts';
import { runMaintenance } from './maintenance.ts';
import type { JobRunner } from './runner.ts';

const t = useTestApp();

const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60_000);

describe('runMaintenance', () => {
  it('removes expired sessions and old finished jobs, and keeps everything still in use', async () => {
    const live = await buildUser(t.ctx);
    const expired = await buildUser(t.ctx);
    await t.ctx.db.execute(sql`update sessions set expires_at = now() - interval '1 minute' where user_id = ${expired.id}`);
    const inserted = await t.ctx.db
      .insert(jobs)
      .values([
        { name: 'old-done', status: 'done', finishedAt: daysAgo(8) },
        { name: 'recent-done', status: 'done', finishedAt: daysAgo(1) },
        { name: 'old-failed', status: 'failed', finishedAt: daysAgo(31) },
        { name: 'recent-failed', status: 'failed', finishedAt: daysAgo(10) },
        { name: 'waiting', status: 'pending', runAt: daysAgo(9) },
      ])
      .returning({ name: jobs.name });
    expect(inserted).toHaveLength(5);

    const { jobsDeleted } = await runMaintenance(t.ctx);

    expect(jobsDeleted).toBe(2);
    const left = (await t.ctx.db.select({ name: jobs.name }).from(jobs)).map((j) => j.name).sort();
    expect(left).toEqual(['recent-done', 'recent-failed', 'waiting']);
    const sessionOwners = (await t.ctx.db.select({ userId: sessions.userId }).from(sessions)).map((s) => s.userId);
    expect(sessionOwners).toContain(live.id);
    expect(sessionOwners).not.toContain(expired.id);
  });
});

describe('job failures', () => {
  it("store a failed query's statement and error in last_error, never its parameter values", async () => {
    const secret = 'EAAB-super-secret-token-value';
    t.ctx.jobs.register({
      name: 'test.failing-query',
      payload: z.object({}),
      async handler(ctx) {
        // The same session token twice: the unique index refuses, and drizzle's error message quotes the parameters.
        await ctx.db.execute(sql`insert into jobs (name, singleton_key) values ('test.twin', ${secret}), ('test.twin', ${secret})`);
      },
    });
    await (t.ctx.jobs as unknown as JobRunner<Record<string, object>>).enqueue('test.failing-query', {}, { maxAttempts: 1 });
    await t.ctx.jobs.drain();
    const [row] = await t.ctx.db.select().from(jobs).where(sql`${jobs.name} = 'test.failing-query'`);
    expect(row.status).toBe('failed');
    expect(row.lastError).toContain('Failed query');
    expect(row.lastError).not.toContain(secret);
  });
});

