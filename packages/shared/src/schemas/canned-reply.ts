import { z } from 'zod';

/** The team's saved replies (issue 24, docs/workspace.md "Canned replies"). */
export const CANNED_SHORTCUT_MAX = 40;
export const CANNED_TEXT_MAX = 5_000;

export const cannedReply = z.object({
  id: z.number(),
  shortcut: z.string(),
  text: z.string(),
  updatedAt: z.string(),
});
export type CannedReply = z.infer<typeof cannedReply>;

const shortcut = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'Shortcut must not be empty')
  .max(CANNED_SHORTCUT_MAX, `Shortcut must be at most ${CANNED_SHORTCUT_MAX} characters`)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'Shortcut may only use letters, digits and dashes (for example "pricing" or "demo-link")');
const text = z.string().trim().min(1, 'Reply text must not be empty').max(CANNED_TEXT_MAX, `Reply text must be at most ${CANNED_TEXT_MAX} characters`);

export const cannedReplyBody = z.object({ shortcut, text });
export type CannedReplyBody = z.infer<typeof cannedReplyBody>;
export const cannedReplyPatch = z
  .object({ shortcut: shortcut.optional(), text: text.optional() })
  .refine((b) => b.shortcut !== undefined || b.text !== undefined, 'Give a new shortcut or text');
