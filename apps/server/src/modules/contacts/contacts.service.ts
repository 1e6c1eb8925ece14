import { and, asc, desc, eq, inArray, isNull, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { ContactView } from '@sales-agent/shared/schemas/conversation';
import type { ContactPatch, ContactSummary } from '@sales-agent/shared/schemas/contact';
import { phoneOf } from '@sales-agent/shared/phone';
import type { Actor, AppContext } from '../../context.ts';
import { contacts, conversationPhases, conversations, messagingAccounts, prospects } from '../../db/schema/index.ts';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import { grantedAccountIds } from '../messaging-accounts/access.ts';

/**
 * Contacts (issue 24, docs/workspace.md "Contacts"): the person behind one or more prospects (handles) and web
 * chats. Created on first need, edited and merged by the team. A NORMAL user may change a contact only when
 * every handle of it is on an account granted to them (and it has no web chat, which only an ADMIN sees).
 */

/**
 * The contact of a prospect, created on first need: a prospect with a phone number joins the contact that
 * already has it (the same person on SMS and WhatsApp), else gets a new one named as the prospect.
 */
export async function ensureContact(ctx: AppContext, prospectId: number): Promise<number | null> {
  const [p] = await ctx.db
    .select({ contactId: prospects.contactId, name: prospects.name, externalId: prospects.externalId, type: messagingAccounts.type })
    .from(prospects)
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(eq(prospects.id, prospectId))
    .limit(1);
  if (!p) return null;
  if (p.contactId !== null) return p.contactId;
  const phone = phoneOf(p.type, p.externalId);
  return ctx.db.transaction(async (tx) => {
    let contactId: number | null = null;
    if (phone) {
      const [same] = await tx.select({ id: contacts.id }).from(contacts).where(eq(contacts.phone, phone)).orderBy(asc(contacts.id)).limit(1);
      contactId = same?.id ?? null;
    }
    if (contactId === null) {
      const [created] = await tx.insert(contacts).values({ name: p.name, phone }).returning({ id: contacts.id });
      contactId = created.id;
    }
    // Another request may have linked it meanwhile: keep the first link.
    const [linked] = await tx
      .update(prospects)
      .set({ contactId })
      .where(and(eq(prospects.id, prospectId), isNull(prospects.contactId)))
      .returning({ contactId: prospects.contactId });
    if (linked) return contactId;
    const [now] = await tx.select({ contactId: prospects.contactId }).from(prospects).where(eq(prospects.id, prospectId));
    return now?.contactId ?? contactId;
  });
}

/** SQL limiting prospects to the accounts the viewer may see (undefined: an ADMIN sees all). */
async function prospectScope(ctx: AppContext, actor: Actor): Promise<SQL | undefined> {
  const granted = await grantedAccountIds(ctx, actor);
  return granted === 'all' ? undefined : inArray(prospects.messagingAccountId, granted.length ? granted : [-1]);
}

/** The contact panel: handles and conversations (web chats for an ADMIN only) limited to what the viewer may see. */
export async function readContactView(ctx: AppContext, actor: Actor, contactId: number): Promise<ContactView | null> {
  const [contact] = await ctx.db.select().from(contacts).where(eq(contacts.id, contactId)).limit(1);
  if (!contact) return null;
  const scope = await prospectScope(ctx, actor);
  const handles = await ctx.db
    .select({ channel: messagingAccounts.type, accountName: messagingAccounts.pageName, externalId: prospects.externalId, name: prospects.name })
    .from(prospects)
    .innerJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(and(eq(prospects.contactId, contactId), scope))
    .orderBy(asc(prospects.id));
  // A web chat (no prospect) belongs to the contact through conversations.contact_id; only an ADMIN sees it.
  const webChats = actor.role === 'ADMIN' ? and(isNull(conversations.prospectId), eq(conversations.contactId, contactId)) : undefined;
  const convs = await ctx.db
    .select({
      id: conversations.id,
      uuid: conversations.uuid,
      channel: messagingAccounts.type,
      phase: conversations.phase,
      state: conversations.state,
      lastMessageDate: conversations.lastMessageDate,
      phaseCount: sql<number>`(select count(*) from ${conversationPhases} where ${conversationPhases.conversationTypeId} = ${conversations.conversationTypeId})`.mapWith(Number),
    })
    .from(conversations)
    .leftJoin(prospects, eq(prospects.id, conversations.prospectId))
    .leftJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    .where(or(and(eq(prospects.contactId, contactId), scope), webChats))
    .orderBy(sql`${conversations.lastMessageDate} desc nulls last`, desc(conversations.id))
    .limit(50);
  const firstPhone = handles.map((h) => phoneOf(h.channel, h.externalId)).find((x) => x !== null) ?? null;
  const phone = contact.phone ?? firstPhone;
  return {
    id: contact.id,
    name: contact.name ?? handles.find((h) => h.name)?.name ?? null,
    ...(phone ? { phone } : {}),
    ...(contact.email ? { email: contact.email } : {}),
    handles: handles.map((h) => ({ channel: h.channel, accountName: h.accountName, externalId: h.externalId, name: h.name })),
    conversations: convs.map((c) => ({ ...c, lastMessageDate: c.lastMessageDate?.toISOString() ?? null })),
  };
}

/** The contact panel of a prospect conversation (its contact created on first need). */
export async function readContact(ctx: AppContext, actor: Actor, prospectId: number): Promise<ContactView | null> {
  const contactId = await ensureContact(ctx, prospectId);
  return contactId === null ? null : readContactView(ctx, actor, contactId);
}

/** 404 for an unknown contact; 403 when a NORMAL user may not change it (a handle or web chat outside their grants). */
async function assertMayChange(ctx: AppContext, actor: Actor, contactId: number): Promise<void> {
  const [contact] = await ctx.db.select({ id: contacts.id }).from(contacts).where(eq(contacts.id, contactId)).limit(1);
  if (!contact) throw notFound('This contact does not exist (it may have been merged into another).', 'CONTACT_NOT_FOUND');
  const granted = await grantedAccountIds(ctx, actor);
  if (granted === 'all') return;
  const [row] = await ctx.db
    .select({
      handles: sql<number>`(select count(*) from ${prospects} where ${prospects.contactId} = ${contactId})`.mapWith(Number),
      outside: sql<number>`(select count(*) from ${prospects} where ${prospects.contactId} = ${contactId}
        and ${notInArray(prospects.messagingAccountId, granted.length ? granted : [-1])})`.mapWith(Number),
      webChats: sql<number>`(select count(*) from ${conversations} where ${conversations.contactId} = ${contactId} and ${conversations.prospectId} is null)`.mapWith(Number),
    })
    .from(contacts)
    .where(eq(contacts.id, contactId));
  if (row.handles === 0 || row.outside > 0 || row.webChats > 0) {
    throw forbidden('You may only change contacts whose conversations are all on messaging accounts granted to you.');
  }
}

/**
 * A phone number typed by a teammate, as E.164; 400 INVALID_PHONE when it is no possible number. One without
 * its country code (+ or 00) is a number of `defaultCountry` (DEFAULT_PHONE_COUNTRY).
 */
export function parseTypedPhone(phone: string, defaultCountry: CountryCode): string {
  const parsed = parsePhoneNumberFromString(phone.replace(/^00/, '+'), defaultCountry);
  if (!parsed || !parsed.isPossible()) {
    throw badRequest(
      `phone: Enter a phone number, for example +1 213 373 4253 (without a country code it is read as a number in ${defaultCountry}).`,
      'INVALID_PHONE',
    );
  }
  return parsed.number;
}

/** A contact as the search and the edit answer it. */
export function toSummary(view: ContactView): ContactSummary {
  return {
    id: view.id,
    name: view.name,
    ...(view.phone ? { phone: view.phone } : {}),
    ...(view.email ? { email: view.email } : {}),
    handles: view.handles.map((h) => ({ channel: h.channel, externalId: h.externalId, name: h.name })),
  };
}

async function summary(ctx: AppContext, actor: Actor, contactId: number): Promise<ContactSummary> {
  const view = await readContactView(ctx, actor, contactId);
  if (!view) throw notFound('This contact does not exist (it may have been merged into another).', 'CONTACT_NOT_FOUND');
  return toSummary(view);
}

/** Tells the open inboxes and panels of the contact's conversations that it changed. */
async function announce(ctx: AppContext, contactId: number): Promise<void> {
  const rows = await ctx.db
    .select({ id: conversations.id, uuid: conversations.uuid })
    .from(conversations)
    .leftJoin(prospects, eq(prospects.id, conversations.prospectId))
    .where(or(eq(prospects.contactId, contactId), eq(conversations.contactId, contactId)))
    .limit(100);
  for (const c of rows) ctx.events.emit('conversation.changed', { conversationId: c.id, uuid: c.uuid });
}

/** PATCH /api/contacts/{id}: name, email, phone (null or "" clears one). */
export async function updateContact(ctx: AppContext, actor: Actor, contactId: number, patch: ContactPatch): Promise<ContactSummary> {
  await assertMayChange(ctx, actor, contactId);
  const set: Partial<typeof contacts.$inferInsert> = { updatedAt: new Date() };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.email !== undefined) set.email = patch.email;
  if (patch.phone !== undefined) set.phone = patch.phone === null ? null : parseTypedPhone(patch.phone, ctx.config.DEFAULT_PHONE_COUNTRY);
  await ctx.db.update(contacts).set(set).where(eq(contacts.id, contactId));
  await announce(ctx, contactId);
  return summary(ctx, actor, contactId);
}

/**
 * POST /api/contacts/{id}/merge {otherContactId}: the other contact's handles and web chats move here, its
 * name, email and phone fill what this one lacks, and it is deleted.
 */
export async function mergeContacts(ctx: AppContext, actor: Actor, contactId: number, otherContactId: number): Promise<ContactSummary> {
  if (contactId === otherContactId) throw badRequest('otherContactId: A contact cannot be merged with itself.');
  await assertMayChange(ctx, actor, contactId);
  await assertMayChange(ctx, actor, otherContactId);
  await ctx.db.transaction(async (tx) => {
    const [other] = await tx.select().from(contacts).where(eq(contacts.id, otherContactId)).for('update').limit(1);
    if (!other) throw notFound('This contact does not exist (it may have been merged into another).', 'CONTACT_NOT_FOUND');
    await tx.update(prospects).set({ contactId }).where(eq(prospects.contactId, otherContactId));
    await tx.update(conversations).set({ contactId }).where(eq(conversations.contactId, otherContactId));
    await tx
      .update(contacts)
      .set({
        name: sql`coalesce(${contacts.name}, ${other.name})`,
        email: sql`coalesce(${contacts.email}, ${other.email})`,
        phone: sql`coalesce(${contacts.phone}, ${other.phone})`,
        updatedAt: new Date(),
      })
      .where(eq(contacts.id, contactId));
    await tx.delete(contacts).where(eq(contacts.id, otherContactId));
  });
  await announce(ctx, contactId);
  return summary(ctx, actor, contactId);
}
