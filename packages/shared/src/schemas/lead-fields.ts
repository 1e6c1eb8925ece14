import { z } from 'zod';

/**
 * Lead fields (issue 22 item 4): what a conversation type wants to learn about the prospect, declared in its
 * config as `"leadFields": [{"key", "label", "type", "required"?, "options"?}]`. The agent fills them with its
 * `update_lead` tool; a person corrects them in the inbox's prospect panel (a person's value wins).
 */
export const LEAD_FIELD_TYPES = ['text', 'number', 'email', 'phone', 'enum', 'date', 'boolean'] as const;
export type LeadFieldType = (typeof LEAD_FIELD_TYPES)[number];

export const leadFieldDefinition = z
  .looseObject({
    key: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9_]{0,39}$/, 'must start with a letter and hold only letters, digits and _ (at most 40)'),
    label: z.string().trim().min(1, 'must not be empty').max(100),
    type: z.enum(LEAD_FIELD_TYPES, { error: `must be one of ${LEAD_FIELD_TYPES.join(', ')}` }),
    /** Needed before the conversation may finish: the agent does not move into the end phase without it. */
    required: z.boolean().optional(),
    /**
     * Needed before the agent moves the conversation into this phase (0-based, as the conversation's `phase`):
     * e.g. 2 keeps it in phase 1 until the field is filled (docs/agent.md "Lead fields").
     */
    requiredBeforePhase: z.number().int().min(1).max(100).optional(),
    /** The allowed values of an `enum` field. */
    options: z.array(z.string().trim().min(1).max(100)).min(1).max(50).optional(),
    /** The GoHighLevel contact field written with it: a standard field (email, companyName, …) or a custom field id. */
    ghlField: z.string().trim().min(1).max(200).optional(),
  })
  .refine((f) => f.type !== 'enum' || (f.options?.length ?? 0) > 0, { message: 'an enum field needs options', path: ['options'] });
export type LeadFieldDefinition = z.infer<typeof leadFieldDefinition>;

export const leadFieldsConfig = z
  .array(leadFieldDefinition)
  .max(30, 'at most 30 lead fields')
  .refine((fields) => new Set(fields.map((f) => f.key)).size === fields.length, { message: 'keys must be unique' });

export type LeadFieldValue = string | number | boolean;

/** A value checked against its field: the normalised value, or why it is refused (words for a person or the model). */
export function checkLeadValue(field: LeadFieldDefinition, raw: unknown): { value: LeadFieldValue } | { error: string } {
  const text = typeof raw === 'string' ? raw.trim() : raw;
  switch (field.type) {
    case 'number': {
      const n = typeof text === 'number' ? text : typeof text === 'string' && text !== '' ? Number(text.replace(/[, ]/g, '')) : Number.NaN;
      return Number.isFinite(n) ? { value: n } : { error: 'must be a number' };
    }
    case 'boolean':
      if (typeof text === 'boolean') return { value: text };
      if (text === 'true' || text === 'yes') return { value: true };
      if (text === 'false' || text === 'no') return { value: false };
      return { error: 'must be true or false' };
    case 'email':
      return typeof text === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254 ? { value: text.toLowerCase() } : { error: 'must be an email address' };
    case 'phone': {
      const digits = typeof text === 'string' ? text.replace(/[\s().-]/g, '') : '';
      return /^\+?[0-9]{6,15}$/.test(digits) ? { value: digits } : { error: 'must be a phone number' };
    }
    case 'date':
      return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)) ? { value: text } : { error: 'must be a date as YYYY-MM-DD' };
    case 'enum': {
      const option = typeof text === 'string' ? field.options?.find((o) => o.toLowerCase() === text.toLowerCase()) : undefined;
      return option ? { value: option } : { error: `must be one of ${(field.options ?? []).join(', ')}` };
    }
    default:
      return typeof text === 'string' && text.length > 0 && text.length <= 1000 ? { value: text } : { error: 'must be text of at most 1000 characters' };
  }
}

/** PUT /api/conversation/{id}/lead-fields: a person's corrections; null clears a field. */
export const leadFieldsBody = z.object({
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

export const leadFieldsView = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
