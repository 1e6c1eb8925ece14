import { z } from 'zod';

/** POST /api/admin/conversation-type/{id}/ab-test: split new conversations between two published versions. */
export const abTestStartBody = z.object({
  versionA: z.number().int().min(1),
  versionB: z.number().int().min(1),
  /** Share (0..1) of new conversations sent to version B. */
  weightB: z.number().min(0).max(1),
});
export type AbTestStartBody = z.infer<typeof abTestStartBody>;

/** POST /api/admin/conversation-type/{id}/ab-test/stop: the arm whose version new conversations start on from now. */
export const abTestStopBody = z.object({ winner: z.enum(['A', 'B']) });

export const abTest = z.object({
  id: z.number(),
  conversationTypeId: z.number(),
  versionA: z.number(),
  versionB: z.number(),
  weightB: z.number(),
  winner: z.enum(['A', 'B']).nullable(),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  running: z.boolean(),
});
export type AbTest = z.infer<typeof abTest>;

/** GET /api/admin/conversation-type/{id}/ab-test: the running test (or null) and the earlier ones, newest first. */
export const abTestList = z.object({ running: abTest.nullable(), tests: z.array(abTest) });
export type AbTestList = z.infer<typeof abTestList>;
