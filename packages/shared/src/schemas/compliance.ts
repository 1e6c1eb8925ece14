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
