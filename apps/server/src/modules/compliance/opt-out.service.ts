import { and, count, desc, eq, ilike, inArray, isNull, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { afterCommit } from '../../db/after-commit.ts';
import { consentRecords, doNotContact, messagingAccounts, prospects, users } from '../../db/schema/index.ts';
import { consentOf, recordConsent } from '../../conversations/consent.ts';
import { emitConversationChanged, type Executor, insertMessage } from '../../conversations/conversation-store.ts';
import { clearOptOut, contactAddress, reportOptOutToCrm, type DoNotContact, doNotContactOf, webChatAddress } from '../../conversations/opt-out.ts';
import { conflict } from '../../lib/errors.ts';
import type { AccessibleConversation } from '../conversations/conversation-policy.ts';

/** The address opt-outs of a prospect are kept under, or null (web chat, prospect gone). */
export async function addressOfProspect(db: Executor, prospectId: number | null): Promise<string | null> {
  if (prospectId === null) return null;
  const [row] = await db
    .select({ externalId: prospects.externalId, accountId: prospects.messagingAccountId, type: messagingAccounts.type })
    .from(prospects)
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(eq(prospects.id, prospectId))
    .limit(1);
  return row ? contactAddress(row.type, row.accountId, row.externalId) : null;
}

/** The address of a conversation: its prospect's, or a web chat's own (docs/compliance.md "Web chat"). */
export async function addressOfConversation(db: Executor, conversation: { prospectId: number | null; uuid: string }): Promise<string | null> {
  return conversation.prospectId === null ? webChatAddress(conversation.uuid) : addressOfProspect(db, conversation.prospectId);
}

/**
 * `doNotContact` and, for a viewer who may change the conversation and a prospect with a phone number,
 * `whatsappOptIn` of GET /api/conversation/{uuid}: one address lookup for both.
 */
export async function complianceOfConversation(
  db: Executor,
  conversation: { prospectId: number | null; uuid: string },
  canAdminister: boolean,
): Promise<{ doNotContact: DoNotContact | null; whatsappOptIn?: { granted: boolean; source: string; at: string } | null }> {
  const address = await addressOfConversation(db, conversation);
  const doNotContact = await doNotContactOf(db, address);
  if (!canAdminister || !address?.startsWith('+')) return { doNotContact };
  const consent = await consentOf(db, address, 'whatsapp');
  return { doNotContact, whatsappOptIn: consent && { granted: consent.granted, source: consent.source, at: consent.createdAt.toISOString() } };
}

/** Clears the opt-out with the person's note, which is also left on the conversation for the team to see. */
export async function clearProspectOptOut(ctx: AppContext, conversation: AccessibleConversation, userId: number, note: string) {
  const address = await addressOfConversation(ctx.db, conversation);
  if (!address) throw conflict('This conversation has no prospect, so there is no opt-out to clear.', 'CONFLICT');
  await ctx.db.transaction(async (tx) => {
    const cleared = await clearOptOut(tx, address, { userId, note });
    if (!cleared.length) throw conflict('This prospect has not opted out.', 'CONFLICT');
    for (const row of cleared) if (!row.address.startsWith('web:')) await reportOptOutToCrm(ctx.jobs, tx, { ...row, on: false });
    await insertMessage(tx, { conversationId: conversation.id, role: 'SYSTEM', message: `Opt-out cleared by a person: ${note}` });
    await afterCommit(tx, () => emitConversationChanged(ctx, conversation));
  });
  return doNotContactOf(ctx.db, address);
}

/**
 * The inbox's opt-out mark: the page's prospect addresses looked up in one query (the address is computed
 * here, where phone numbers are normalised, not in SQL).
 */
export async function withOptOutMarks<R extends { prospectExternalId: string | null; accountId: number | null; accountType: string | null }, P>(
  db: Executor,
  rows: R[],
  present: (row: R) => P,
): Promise<(P & { doNotContact: boolean })[]> {
  const addressOf = (r: R) => (r.prospectExternalId && r.accountId !== null && r.accountType ? contactAddress(r.accountType, r.accountId, r.prospectExternalId) : null);
  const addresses = [...new Set(rows.map(addressOf).filter((a): a is string => a !== null))];
  const opted = addresses.length
    ? new Set(
        (
          await db
            .select({ address: doNotContact.address })
            .from(doNotContact)
            .where(and(inArray(doNotContact.address, addresses), isNull(doNotContact.clearedAt)))
        ).map((r) => r.address),
      )
    : new Set<string>();
  return rows.map((r) => {
    const address = addressOf(r);
    return { ...present(r), doNotContact: address !== null && opted.has(address) };
  });
}

/** An ILIKE pattern for text containing `part` (its own % and _ taken literally). */
const containing = (part: string) => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A person's consent entry for a prospect (a WhatsApp opt-in given on a call, say), noted on the conversation too. */
export async function recordProspectConsent(
  ctx: AppContext,
  conversation: AccessibleConversation,
  userId: number,
  body: { channel: string; granted: boolean; note: string },
): Promise<void> {
  const address = conversation.prospectId === null ? null : await addressOfProspect(ctx.db, conversation.prospectId);
  if (!address || !address.startsWith('+')) throw conflict('Consent is recorded for a phone number; this conversation has none.', 'CONFLICT');
  await ctx.db.transaction(async (tx) => {
    await recordConsent(tx, { address, channel: body.channel, granted: body.granted, source: 'person', note: body.note, byUserId: userId });
    const what = body.granted ? 'WhatsApp opt-in recorded' : 'WhatsApp opt-in withdrawn';
    await insertMessage(tx, { conversationId: conversation.id, role: 'SYSTEM', message: `${what} by a person: ${body.note}` });
    await afterCommit(tx, () => emitConversationChanged(ctx, conversation));
  });
}

/** The ADMIN's audit list of consent changes (GET /api/admin/compliance/consents), newest first. */
export async function listConsents(ctx: AppContext, query: { address?: string; limit: number; offset: number }) {
  const where = query.address ? ilike(consentRecords.address, containing(query.address)) : undefined;
  const rows = await ctx.db
    .select({
      id: consentRecords.id,
      address: consentRecords.address,
      channel: consentRecords.channel,
      granted: consentRecords.granted,
      source: consentRecords.source,
      note: consentRecords.note,
      by: users.email,
      at: consentRecords.createdAt,
    })
    .from(consentRecords)
    .leftJoin(users, eq(users.id, consentRecords.byUserId))
    .where(where)
    .orderBy(desc(consentRecords.id))
    .limit(query.limit)
    .offset(query.offset);
  const [{ total }] = await ctx.db.select({ total: count() }).from(consentRecords).where(where);
  return { items: rows.map((r) => ({ ...r, by: r.by ?? null, at: r.at.toISOString() })), total: Number(total) };
}

/** The ADMIN's audit list of opt-outs (GET /api/admin/compliance/opt-outs), newest first. */
export async function listOptOuts(ctx: AppContext, query: { active?: 'true' | 'false'; address?: string; limit: number; offset: number }) {
  const conditions: SQL[] = [];
  if (query.active === 'true') conditions.push(isNull(doNotContact.clearedAt));
  if (query.address) conditions.push(ilike(doNotContact.address, containing(query.address)));
  const where = conditions.length ? and(...conditions) : undefined;
  const rows = await ctx.db
    .select({
      id: doNotContact.id,
      address: doNotContact.address,
      channel: doNotContact.channel,
      how: doNotContact.how,
      since: doNotContact.since,
      clearedAt: doNotContact.clearedAt,
      clearedBy: users.email,
      clearNote: doNotContact.clearNote,
    })
    .from(doNotContact)
    .leftJoin(users, eq(users.id, doNotContact.clearedByUserId))
    .where(where)
    .orderBy(desc(doNotContact.since), desc(doNotContact.id))
    .limit(query.limit)
    .offset(query.offset);
  const [{ total }] = await ctx.db.select({ total: count() }).from(doNotContact).where(where);
  return {
    items: rows.map((r) => ({ ...r, since: r.since.toISOString(), clearedAt: r.clearedAt?.toISOString() ?? null, clearedBy: r.clearedBy ?? null })),
    total: Number(total),
  };
}
