import { and, inArray, or, sql } from 'drizzle-orm';
import type { ContactSummary } from '@sales-agent/shared/schemas/contact';
import type { Actor, AppContext } from '../../context.ts';
import { contacts, prospects } from '../../db/schema/index.ts';
import { grantedAccountIds } from '../messaging-accounts/access.ts';
import { searchTsQuery } from '../conversations/workspace.service.ts';
import { ensureContact, readContactView, toSummary } from './contacts.service.ts';

const LIMIT = 20;

/**
 * GET /api/contacts?q=: the contacts to merge with, found by name, handle, email or phone number (the same
 * full-text indexes as the inbox's search). A NORMAL user finds only people with a handle on a granted
 * account, and sees only those handles; an ADMIN also finds web-chat contacts.
 */
export async function searchContacts(ctx: AppContext, actor: Actor, q: string): Promise<ContactSummary[]> {
  const tsq = searchTsQuery(q);
  const digits = q.replace(/[^\d]/g, '');
  const phoneLike = /^[\d\s+().-]+$/.test(q) && digits.length >= 4;
  const granted = await grantedAccountIds(ctx, actor);
  const scope = granted === 'all' ? undefined : inArray(prospects.messagingAccountId, granted.length ? granted : [-1]);
  const query = tsq ? sql`to_tsquery('simple', ${tsq})` : null;
  const contactMatch = query
    ? sql`to_tsvector('simple', coalesce(${contacts.name}, '') || ' ' || coalesce(${contacts.email}, '') || ' ' || coalesce(${contacts.phone}, '')) @@ ${query}`
    : null;
  const prospectMatches = or(
    query ? sql`to_tsvector('simple', coalesce(${prospects.name}, '') || ' ' || ${prospects.externalId}) @@ ${query}` : undefined,
    contactMatch ? inArray(prospects.contactId, ctx.db.select({ id: contacts.id }).from(contacts).where(contactMatch)) : undefined,
    phoneLike ? sql`regexp_replace(${prospects.externalId}, '[^0-9]', '', 'g') like ${`%${digits}%`}` : undefined,
  );
  if (!prospectMatches) return [];
  const found = await ctx.db.select({ id: prospects.id }).from(prospects).where(and(prospectMatches, scope)).limit(LIMIT);
  const ids = new Set<number>();
  // A prospect nobody has opened yet has no contact: give it one, so it can be merged.
  for (const p of found) {
    const contactId = await ensureContact(ctx, p.id);
    if (contactId !== null) ids.add(contactId);
  }
  if (granted === 'all' && (contactMatch || phoneLike)) {
    const direct = await ctx.db
      .select({ id: contacts.id })
      .from(contacts)
      .where(or(contactMatch ?? undefined, phoneLike ? sql`regexp_replace(coalesce(${contacts.phone}, ''), '[^0-9]', '', 'g') like ${`%${digits}%`}` : undefined))
      .limit(LIMIT);
    for (const c of direct) ids.add(c.id);
  }
  const out: ContactSummary[] = [];
  for (const id of [...ids].slice(0, LIMIT)) {
    const view = await readContactView(ctx, actor, id);
    if (view) out.push(toSummary(view));
  }
  return out;
}
