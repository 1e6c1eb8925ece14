import { z } from 'zod';

/** Contacts page sizes (spec §9: 10 or 20, default 10). The API accepts up to GoHighLevel's own maximum. */
export const CONTACTS_PAGE_SIZES = [10, 20] as const;
export const CONTACTS_PAGE_SIZE_DEFAULT = 10;
export const CONTACTS_LIMIT_MAX = 100;

/** A GoHighLevel id as it appears in paths and queries (letters, digits, '-' and '_'). */
const ghlId = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(100, `${label} is too long`)
    .regex(/^[A-Za-z0-9_-]+$/, `${label} must be a GoHighLevel id (letters, digits, - and _)`);

/** Spec §3 Pipeline: id, name, stages (id, name). */
export const crmPipeline = z.object({
  id: z.string(),
  name: z.string(),
  stages: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type CrmPipeline = z.infer<typeof crmPipeline>;

/** GET /api/admin/conversation-type/{id}/pipelines (spec §7.3). */
export const crmPipelinesAnswer = z.object({ pipelines: z.array(crmPipeline) });
export type CrmPipelinesAnswer = z.infer<typeof crmPipelinesAnswer>;

/**
 * Query of GET /api/admin/conversation-type/{id}/pipeline/contacts (spec §7.3). The cursor is the previous
 * answer's meta.startAfter (a timestamp) and meta.startAfterId; both or neither.
 */
export const crmContactsQuery = z
  .object({
    pipelineId: ghlId('pipelineId'),
    /** Absent or empty: every stage of the pipeline. */
    stageId: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined))
      .pipe(ghlId('stageId').optional()),
    startAfter: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined))
      .pipe(z.string().regex(/^\d{1,16}$/, 'startAfter must be the meta.startAfter of the previous page').optional()),
    startAfterId: z
      .string()
      .optional()
      .transform((v) => (v?.trim() ? v.trim() : undefined))
      .pipe(ghlId('startAfterId').optional()),
    limit: z.coerce
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(CONTACTS_LIMIT_MAX, `limit must be at most ${CONTACTS_LIMIT_MAX}`)
      .default(CONTACTS_PAGE_SIZE_DEFAULT),
  })
  .refine((q) => (q.startAfter === undefined) === (q.startAfterId === undefined), {
    message: 'startAfter and startAfterId go together (both from the previous page, or neither)',
    path: ['startAfterId'],
  });
export type CrmContactsQuery = z.input<typeof crmContactsQuery>;

/** Spec §3 Opportunity: contact (id, name, phone); `id` is the opportunity's own id (an addition). */
export const crmOpportunity = z.object({
  id: z.string(),
  contact: z.object({ id: z.string(), name: z.string(), phone: z.string().nullable() }),
});
export type CrmOpportunity = z.infer<typeof crmOpportunity>;

/** Spec §3: opportunities and meta (total, startAfter, startAfterId); null cursor on the last page. */
export const crmContactsAnswer = z.object({
  opportunities: z.array(crmOpportunity),
  meta: z.object({
    total: z.number(),
    startAfter: z.union([z.number(), z.string()]).nullable(),
    startAfterId: z.string().nullable(),
  }),
});
export type CrmContactsAnswer = z.infer<typeof crmContactsAnswer>;
