import { z } from 'zod';
import type { JobDefinition } from '../../jobs/runner.ts';
import { playOneRun, TEST_RUN_JOB } from './agent-tests.service.ts';

export { TEST_RUN_JOB };

/** One sandbox run of a test batch (issue 25): the batch's runs are separate jobs, so they play in parallel. */
export const testRunJob: JobDefinition<z.ZodObject<{ runId: z.ZodNumber; scenario: z.ZodNumber }>> = {
  name: TEST_RUN_JOB,
  payload: z.object({ runId: z.number().int().positive(), scenario: z.number().int().min(0) }),
  async handler(ctx, { runId, scenario }) {
    await playOneRun(ctx, runId, scenario);
  },
};
