import { z } from 'zod';
import type { JobDefinition } from '../jobs/runner.ts';
import { FOLLOW_UP_JOB, scheduleFollowUp, sendFollowUp } from './follow-up.ts';

/**
 * The durable follow-up (runAt = the entry's earliestReplyDateTime, singletonKey `follow-up:<id>`). It lives
 * in the jobs table, so it survives a restart, and the runner's claim makes it run once.
 */
export const followUpJob: JobDefinition<z.ZodObject<{ conversationId: z.ZodNumber }>> = {
  name: FOLLOW_UP_JOB,
  payload: z.object({ conversationId: z.number().int().positive() }),
  async handler(ctx, { conversationId }, job) {
    const outcome = await sendFollowUp(ctx, conversationId, { manual: false });
    ctx.log.debug({ conversationId, outcome }, 'follow-up');
    // Free the key, then schedule the next one from the entry as it is now. A skipped follow-up schedules
    // nothing (the next agent reply starts a new silence), or a stale entry would run this job in a loop.
    // Both in one transaction: a process killed in between leaves this job claimed (it runs again when its
    // lease runs out, finds the sent follow-up counted and not yet due, and schedules the next), never a job
    // marked done with no follow-up after it; a failure here is thrown, and the runner retries the job.
    await ctx.db.transaction(async (tx) => {
      await ctx.jobs.complete(job, tx);
      if (outcome === 'sent' || outcome === 'not-due') await scheduleFollowUp(ctx, conversationId, { executor: tx });
    });
  },
};
