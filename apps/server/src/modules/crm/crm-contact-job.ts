import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { conversations, conversationTypes } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { credentialsOf } from './crm.service.ts';
import { GhlClient } from './ghl.client.ts';

/**
 * What the CRM jobs of one conversation's contact share (the booked stage, the lead fields): the contact and
 * its type's config, and a client for the type's credentials.
 */

/** The conversation's CRM contact and its type's config; null when it has none (nothing to write). */
export async function crmContactOf(ctx: AppContext, conversationId: number): Promise<{ contactId: string; config: string } | null> {
  const [row] = await ctx.db
    .select({ contactId: conversations.crmContactId, config: conversationTypes.config })
    .from(conversations)
    .innerJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .where(eq(conversations.id, conversationId));
  if (!row?.contactId || row.config === null) return null;
  return { contactId: row.contactId, config: row.config };
}

/**
 * A client for the type's GoHighLevel credentials, or null (logged, not retried) when they are missing or
 * unusable: a configuration problem that a retry cannot fix.
 */
export function ghlClientOrSkip(ctx: AppContext, config: string, conversationId: number, what: string): GhlClient | null {
  try {
    return new GhlClient(ctx, credentialsOf(ctx, config));
  } catch (err) {
    if (err instanceof AppError && err.status === 400) {
      ctx.log.warn({ conversationId, code: err.code }, `${what} skipped`);
      return null;
    }
    throw err;
  }
}
