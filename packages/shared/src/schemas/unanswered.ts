import { z } from 'zod';
import { UNANSWERED_STATUSES } from '../enums.ts';

/** One row of GET /api/admin/unanswered-conversations/listt (spec §2.9, §3). */
export const unansweredItem = z.object({
  id: z.number(),
  status: z.enum(UNANSWERED_STATUSES),
  followUpCount: z.number(),
  earliestReplyDateTime: z.string(),
  /** JSON text of an array of { message, type, code, status, method, url, response, details }. */
  errors: z.string(),
  conversation: z.object({
    uuid: z.string(),
    phase: z.number(),
    Prospect: z.object({ uuid: z.string(), messagingAccount: z.object({ pageName: z.string() }) }).nullable(),
  }),
});
export type UnansweredItem = z.infer<typeof unansweredItem>;

export const unansweredList = z.array(unansweredItem);
export const unansweredStatusBody = z.object({ status: z.enum(UNANSWERED_STATUSES) });

/** One stored error of an unanswered conversation; fields beyond these are kept but not shown. */
export const unansweredError = z.looseObject({
  message: z.unknown().optional(),
  type: z.unknown().optional(),
  code: z.unknown().optional(),
  status: z.unknown().optional(),
  method: z.unknown().optional(),
  url: z.unknown().optional(),
  response: z.unknown().optional(),
  details: z.unknown().optional(),
});
export type UnansweredError = z.infer<typeof unansweredError>;
