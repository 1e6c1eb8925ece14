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

/** A person records (or withdraws) a prospect's consent, e.g. a WhatsApp opt-in given on a call: with a note. */
export const consentBody = z.object({
  channel: z.enum(['whatsapp']),
  granted: z.boolean(),
  note: z.string().trim().min(3, 'Write a note saying where and how the consent was given (at least 3 characters).').max(2000),
});

/** One consent change (GET /api/admin/compliance/consents): who, when, what, from where. */
export const consentAuditItem = z.object({
  id: z.number(),
  address: z.string(),
  channel: z.string(),
  granted: z.boolean(),
  /** `prospect wrote first`, `keyword START`, `api`, `person`, `opt-out`. */
  source: z.string(),
  note: z.string().nullable(),
  /** The person's email when a person recorded it. */
  by: z.string().nullable(),
  at: z.string(),
});
export type ConsentAuditItem = z.infer<typeof consentAuditItem>;
export const consentAuditList = z.object({ items: z.array(consentAuditItem), total: z.number() });
export type ConsentAuditList = z.infer<typeof consentAuditList>;
export const consentAuditQuery = optOutAuditQuery.omit({ active: true });

/**
 * The prospect's WhatsApp opt-in as the conversation screen shows it: the newest consent record of their phone
 * number (`granted` false: withdrawn); null when none was ever recorded.
 */
export const consentStateView = z.object({ granted: z.boolean(), source: z.string(), at: z.string() }).nullable();
export type ConsentStateView = z.infer<typeof consentStateView>;

/** The multipart field of POST /api/admin/compliance/consents/import, and the most rows one file may hold. */
export const CONSENT_IMPORT_FIELD = 'file';
export const CONSENT_IMPORT_MAX_ROWS = 10_000;
export const CONSENT_IMPORT_MAX_BYTES = 2 * 1024 * 1024;

/** The answer of the opt-in import: rows recorded, and the ones left out with the reason (row 1: the first after the header). */
export const consentImportResult = z.object({
  imported: z.number().int(),
  skipped: z.array(z.object({ row: z.number().int(), reason: z.string() })),
});
export type ConsentImportResult = z.infer<typeof consentImportResult>;

export const optOutAuditList = z.object({ items: z.array(optOutAuditItem), total: z.number() });
export type OptOutAuditList = z.infer<typeof optOutAuditList>;
