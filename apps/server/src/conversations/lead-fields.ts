import { checkLeadValue, type LeadFieldDefinition, type LeadFieldValue } from '@sales-agent/shared/schemas/lead-fields';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';
import { conversationLeadFields } from '../db/schema/index.ts';
import { recordConversationEvent } from '../lib/webhook-outbox.ts';

/** The lead fields recorded on a conversation, key → value (issue 22). */
export async function readLeadFields(db: Executor, conversationId: number): Promise<Record<string, LeadFieldValue>> {
  const rows = await db.select().from(conversationLeadFields).where(eq(conversationLeadFields.conversationId, conversationId));
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export interface LeadFieldsWrite {
  saved: Record<string, LeadFieldValue>;
  /** Key → why it was not written (unknown key, invalid value, a person's correction kept). */
  rejected: Record<string, string>;
}

/**
 * Validates `values` against the type's declarations and writes what passes. The agent never overwrites a
 * value a person set; a person's write always wins and `null` clears the field.
 *
 * When a value really changes (set, changed or cleared; writing the same value again is not a change), the
 * `lead.updated` webhook event is stored through the same executor: pass a transaction so the fields and
 * their event commit together (lib/webhook-outbox.ts).
 */
export async function writeLeadFields(
  db: Executor,
  conversationId: number,
  definitions: LeadFieldDefinition[],
  values: Record<string, unknown>,
  by: { source: 'agent' } | { source: 'person'; userId: number | null },
): Promise<LeadFieldsWrite> {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const result: LeadFieldsWrite = { saved: {}, rejected: {} };
  const cleared: string[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const field = byKey.get(key);
    if (!field) {
      result.rejected[key] = 'is not a lead field of this conversation type';
      continue;
    }
    if (raw === null || raw === undefined || raw === '') {
      if (by.source === 'person') cleared.push(key);
      continue;
    }
    const checked = checkLeadValue(field, raw);
    if ('error' in checked) result.rejected[key] = checked.error;
    else result.saved[key] = checked.value;
  }
  if (by.source === 'agent' && Object.keys(result.saved).length > 0) {
    const kept = await db
      .select({ key: conversationLeadFields.key })
      .from(conversationLeadFields)
      .where(and(eq(conversationLeadFields.conversationId, conversationId), eq(conversationLeadFields.source, 'person'), inArray(conversationLeadFields.key, Object.keys(result.saved))));
    for (const { key } of kept) {
      delete result.saved[key];
      result.rejected[key] = 'was corrected by a person; keep their value';
    }
  }
  const before = await readLeadFields(db, conversationId);
  if (cleared.length > 0) {
    await db.delete(conversationLeadFields).where(and(eq(conversationLeadFields.conversationId, conversationId), inArray(conversationLeadFields.key, cleared)));
  }
  const rows = Object.entries(result.saved).map(([key, value]) => ({
    conversationId,
    key,
    value,
    source: by.source,
    updatedBy: by.source === 'person' ? by.userId : null,
  }));
  if (rows.length > 0) {
    await db
      .insert(conversationLeadFields)
      .values(rows)
      .onConflictDoUpdate({
        target: [conversationLeadFields.conversationId, conversationLeadFields.key],
        set: { value: sql`excluded.value`, source: sql`excluded.source`, updatedBy: sql`excluded.updated_by`, updatedAt: sql`now()` },
      });
  }
  const changed = [
    ...Object.entries(result.saved).filter(([key, value]) => JSON.stringify(before[key]) !== JSON.stringify(value)).map(([key]) => key),
    ...cleared.filter((key) => before[key] !== undefined),
  ];
  if (changed.length > 0) {
    const after = { ...before, ...result.saved };
    for (const key of cleared) delete after[key];
    await recordConversationEvent(db, 'lead.updated', conversationId, { leadFields: after, changed, by: by.source });
  }
  return result;
}

/** The required fields still without a value (the agent keeps asking; a finish may require them). */
export function missingRequiredFields(definitions: LeadFieldDefinition[], values: Record<string, LeadFieldValue>): string[] {
  return definitions.filter((d) => d.required && values[d.key] === undefined).map((d) => d.key);
}

/**
 * The declared fields that must be filled before the conversation moves into phase `next` (of `phaseCount`;
 * `next === phaseCount` is the end): `required` ones before the end, `requiredBeforePhase` ones before that phase.
 */
export async function fieldsMissingFor(
  db: Executor,
  conversationId: number,
  definitions: LeadFieldDefinition[],
  next: number,
  phaseCount: number,
): Promise<LeadFieldDefinition[]> {
  const needed = definitions.filter((d) => (d.required && next >= phaseCount) || (d.requiredBeforePhase !== undefined && next >= d.requiredBeforePhase));
  if (needed.length === 0) return [];
  const filled = await readLeadFields(db, conversationId);
  return needed.filter((d) => filled[d.key] === undefined);
}
