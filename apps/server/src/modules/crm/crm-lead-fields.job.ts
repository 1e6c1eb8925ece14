import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { z } from 'zod';
import { CRM_LEAD_FIELDS_JOB } from '../../conversations/conversation-outcome.ts';
import { readLeadFields } from '../../conversations/lead-fields.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { crmContactOf, ghlClientOrSkip } from './crm-contact-job.ts';

const payload = z.object({ conversationId: z.number().int().positive() });

/** GoHighLevel contact fields written by name in PUT /contacts/{id}; any other `ghlField` is a custom field id. */
export const GHL_STANDARD_CONTACT_FIELDS = new Set([
  'firstName', 'lastName', 'name', 'email', 'phone', 'companyName', 'website', 'address1', 'city', 'state', 'postalCode', 'country', 'timezone', 'source', 'dateOfBirth',
]);

/**
 * Writes a CRM contact's lead fields to GoHighLevel (issue 22, docs/crm.md "Lead fields"): every declared field
 * with a `ghlField` and a value goes into one partial `PUT /contacts/{id}` — standard fields by name, the others
 * as `customFields: [{id, field_value}]` (HighLevel's contact update wire format). Values are read when the job
 * runs, so a retry or a later write sends the latest ones.
 */
export const crmLeadFieldsJob: JobDefinition<typeof payload> = {
  name: CRM_LEAD_FIELDS_JOB,
  payload,
  async handler(ctx, { conversationId }) {
    const row = await crmContactOf(ctx, conversationId);
    if (!row) return;
    const mapped = (readConversationTypeConfig(row.config).leadFields ?? []).filter((f) => f.ghlField);
    if (mapped.length === 0) return;
    const values = await readLeadFields(ctx.db, conversationId);
    const body: Record<string, unknown> = {};
    const customFields: { id: string; field_value: string | number | boolean }[] = [];
    for (const field of mapped) {
      const value = values[field.key];
      if (value === undefined) continue;
      if (GHL_STANDARD_CONTACT_FIELDS.has(field.ghlField!)) body[field.ghlField!] = value;
      else customFields.push({ id: field.ghlField!, field_value: value });
    }
    if (customFields.length > 0) body.customFields = customFields;
    if (Object.keys(body).length === 0) return;
    const client = ghlClientOrSkip(ctx, row.config, conversationId, 'CRM lead fields');
    if (!client) return;
    await client.updateContact(row.contactId, body);
  },
};
