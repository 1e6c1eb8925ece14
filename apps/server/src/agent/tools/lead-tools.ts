import { reportLeadFieldsChanged } from '../../conversations/conversation-outcome.ts';
import type { LeadFieldDefinition } from '@sales-agent/shared/schemas/lead-fields';
import type { AppContext } from '../../context.ts';
import { missingRequiredFields, readLeadFields, writeLeadFields } from '../../conversations/lead-fields.ts';
import { toolDefinition, type ToolDefinition } from './tool-types.ts';

const JSON_TYPES: Record<LeadFieldDefinition['type'], string> = {
  text: 'string',
  number: 'number',
  email: 'string',
  phone: 'string',
  enum: 'string',
  date: 'string',
  boolean: 'boolean',
};

/** `update_lead`: one property per declared lead field, so the model can only fill what the type asks for. */
export function leadToolDefinition(fields: LeadFieldDefinition[]): ToolDefinition {
  const properties = Object.fromEntries(
    fields.map((f) => {
      const hint = f.type === 'date' ? ' (YYYY-MM-DD)' : f.type === 'phone' ? ' (with country code)' : '';
      return [f.key, { type: JSON_TYPES[f.type], description: `${f.label}${hint}${f.required ? '; required' : ''}`, ...(f.type === 'enum' ? { enum: f.options } : {}) }];
    }),
  );
  return toolDefinition(
    'update_lead',
    'Records what the prospect told you about themselves. Call it as soon as they state one of these fields (only what they said, never a guess).',
    properties,
  );
}

export async function updateLead(ctx: AppContext, conversationId: number, fields: LeadFieldDefinition[], args: Record<string, unknown>) {
  // One transaction: the fields, their lead.updated event and the CRM write-back job commit together.
  const written = await ctx.db.transaction(async (tx) => {
    const result = await writeLeadFields(tx, conversationId, fields, args, { source: 'agent' });
    if (Object.keys(result.saved).length > 0) await reportLeadFieldsChanged(ctx, conversationId, tx);
    return result;
  });
  const stillMissing = missingRequiredFields(fields, await readLeadFields(ctx.db, conversationId));
  return { ...written, stillMissing };
}
