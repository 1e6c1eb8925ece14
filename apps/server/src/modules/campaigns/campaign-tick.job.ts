import { z } from 'zod';
import type { JobDefinition } from '../../jobs/runner.ts';
import { CAMPAIGN_TICK_JOB, campaignTickKey, runCampaignTick } from './campaign-tick.ts';

/**
 * One tick of a running campaign (campaign-tick.ts), then its successor at the time the tick named — both in
 * one transaction with the job's completion, like the follow-up job: never a finished tick without the next.
 */
export const campaignTickJob: JobDefinition<z.ZodObject<{ campaignId: z.ZodNumber }>> = {
  name: CAMPAIGN_TICK_JOB,
  payload: z.object({ campaignId: z.number().int().positive() }),
  async handler(ctx, { campaignId }, job) {
    const delay = await runCampaignTick(ctx, campaignId);
    await ctx.db.transaction(async (tx) => {
      await ctx.jobs.complete(job, tx);
      if (delay !== null) {
        await ctx.jobs.enqueue(CAMPAIGN_TICK_JOB, { campaignId }, { singletonKey: campaignTickKey(campaignId), runAt: new Date(Date.now() + delay), executor: tx });
      }
    });
  },
};
