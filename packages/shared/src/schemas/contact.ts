import { z } from 'zod';
import { idParam } from './common.ts';

/** Editing, finding and merging contacts (issue 24, docs/workspace.md "Contacts"). */
export const CONTACT_NAME_MAX = 200;

/** Empty text clears the field (null); the server parses the phone number (libphonenumber-js) into E.164. */
const clearable = (max: number, label: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() || null : v),
    z.string().max(max, `${label} must be at most ${max} characters`).nullable().optional(),
  );

export const contactPatch = z
  .object({
    name: clearable(CONTACT_NAME_MAX, 'Name'),
    email: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim().toLowerCase() || null : v),
      z.email('Email must be an email address such as ana@example.com').max(254).nullable().optional(),
    ),
    phone: clearable(40, 'Phone'),
  })
  .refine((b) => b.name !== undefined || b.email !== undefined || b.phone !== undefined, 'Give a name, email or phone to change');
export type ContactPatch = z.infer<typeof contactPatch>;

export const contactMergeBody = z.object({ otherContactId: idParam });

export const contactSearchQuery = z.object({
  q: z.string().trim().min(1, 'Type a name, phone number, handle or email to search').max(200),
});

/** A contact as a search lists it: enough to tell two people apart before merging. */
export const contactSummary = z.object({
  id: z.number(),
  name: z.string().nullable(),
  phone: z.string().optional(),
  email: z.string().optional(),
  handles: z.array(z.object({ channel: z.string(), externalId: z.string(), name: z.string().nullable() })),
});
export type ContactSummary = z.infer<typeof contactSummary>;
