import { like, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { jobs } from '../db/schema/index.ts';
import type { JobRunner } from '../jobs/runner.ts';

/**
 * The steps of the crash tests at the job boundary (docs/agent.md "Concurrency"): a job is claimed as the
 * runner claims it, its handler runs on a runner that "dies" while queueing the next job, the dead worker's
 * lease runs out and the real runner takes the job again. Each test still says what it expects after each step.
 */

/** Marks a pending job claimed as the runner claims it: running, one attempt more, leased for a minute. */
export async function claimLikeTheRunner(ctx: AppContext, jobId: number): Promise<void> {
  await ctx.db.execute(sql`update jobs set status = 'running', attempts = attempts + 1, locked_until = now() + interval '1 minute' where id = ${jobId}`);
}

/** The app's runner, except that queueing a `jobName` job fails with `message`: the process is killed right there. */
export function runnerKilledOnEnqueue(ctx: AppContext, jobName: string, message: string): JobRunner {
  const dying = Object.create(ctx.jobs) as JobRunner;
  dying.enqueue = (name, payload, options) => (name === jobName ? Promise.reject(new Error(message)) : ctx.jobs.enqueue(name, payload, options));
  return dying;
}

/** Lets a dead worker's lease on a job run out, so the runner may claim the job again. */
export async function expireLease(ctx: AppContext, jobId: number): Promise<void> {
  await ctx.db.execute(sql`update jobs set locked_until = now() - interval '1 second' where id = ${jobId}`);
}

/**
 * The ends reported for a conversation (reportConversationOutcome), in insertion order: the outcome analysis
 * jobs, each of which queues the CRM write-back of a CRM contact's conversation after it ran.
 */
export async function reportedOutcomes(ctx: AppContext, conversationId: number): Promise<string[]> {
  const rows = await ctx.db.select().from(jobs).where(like(jobs.singletonKey, `analysis:${conversationId}:%`));
  return rows.map((job) => (job.payload as { ended: string }).ended);
}
