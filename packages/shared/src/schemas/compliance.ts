import { z } from 'zod';

/**
 * The prospect's active opt-outs, by the channel each came from (`sms`, `whatsapp`, `instagram`, `messenger`,
 * `call`, `web` or `all`); null when they may be contacted. Any entry stops every automated contact to the
 * address (issue 23, docs/compliance.md).
 */
export const doNotContactView = z
  .record(z.string(), z.object({ since: z.string(), how: z.string() }))
  .nullable();
export type DoNotContactView = z.infer<typeof doNotContactView>;

/** Clearing an opt-out is a person's decision that a compliance request may ask about: it needs a note. */
export const clearOptOutBody = z.object({
  note: z.string().trim().min(3, 'Write a note saying why the opt-out is cleared (at least 3 characters).').max(2000),
});

/** Query of GET /api/admin/compliance/opt-outs (the ADMIN's audit list, newest first). */
export const optOutAuditQuery = z.object({
  /** `true`: only opt-outs still in force. */
  active: z.enum(['true', 'false']).optional(),
  /** Part of the address (a phone number, or a channel id). */
  address: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** One opt-out and, when it ended, who ended it and why: what a compliance request asks for. */
export const optOutAuditItem = z.object({
  id: z.number(),
  address: z.string(),
  channel: z.string(),
  how: z.string(),
  since: z.string(),
  clearedAt: z.string().nullable(),
  /** The person's email; null with clearedAt set: the prospect wrote START. */
  clearedBy: z.string().nullable(),
  clearNote: z.string().nullable(),
});
export type OptOutAuditItem = z.infer<typeof optOutAuditItem>;

export const optOutAuditList = z.object({ items: z.array(optOutAuditItem), total: z.number() });
export type OptOutAuditList = z.infer<typeof optOutAuditList>;
