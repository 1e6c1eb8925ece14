import { and, eq, isNull, sql } from 'drizzle-orm';
import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { contacts, conversations } from '../../db/schema/index.ts';
import { ensureContact } from './contacts.service.ts';

/**
 * What a prospect or web-chat visitor types about themselves (issue 24): the first email address and phone
 * number in a message are kept on their contact, shown in the prospect panel. Only fills a blank field, so a
 * teammate's edit is never overwritten by a later message.
 */

/** Candidates for an email address in running text; each is then checked with zod's email rule. */
const EMAIL_CANDIDATES = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu;

export function findEmail(text: string): string | null {
  for (const match of text.matchAll(EMAIL_CANDIDATES)) {
    const candidate = match[0].replace(/\.+$/, '').toLowerCase();
    if (z.email().safeParse(candidate).success) return candidate;
  }
  return null;
}

/** Written like a phone number: with its + or grouped ("555 123 4567", "(555) 123-4567"), not a bare run of digits. */
const PHONE_WRITING = /^\+|\d[\s().-]+\d/;

/**
 * The first phone number in running text (libphonenumber-js, as E.164). One written without its country code
 * ("(415) 555-0100") is read as a number of `defaultCountry` (DEFAULT_PHONE_COUNTRY). A number valid there
 * counts; a merely possible one (the 555 numbers of examples and tests are no assigned range) only when it is
 * written like a phone number, so an order or reference number, or a date, is not taken for one.
 */
export function findPhone(text: string, defaultCountry: CountryCode): string | null {
  // `leniency` is a documented option the bundled typings omit.
  const options = { defaultCountry, leniency: 'POSSIBLE' } as { defaultCountry: CountryCode };
  const found = findPhoneNumbersInText(text, options).find(
    (m) => m.number.isValid() || PHONE_WRITING.test(text.slice(m.startsAt, m.endsAt)),
  );
  return found?.number.number ?? null;
}

/** Stores the email and phone a message carries on the conversation's contact (created for a web chat). */
export async function captureContactDetails(ctx: AppContext, conversationId: number, text: string): Promise<void> {
  const email = findEmail(text);
  const phone = findPhone(text, ctx.config.DEFAULT_PHONE_COUNTRY);
  if (!email && !phone) return;
  const [conv] = await ctx.db
    .select({ uuid: conversations.uuid, prospectId: conversations.prospectId, contactId: conversations.contactId })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  if (!conv) return;
  let contactId = conv.prospectId === null ? conv.contactId : await ensureContact(ctx, conv.prospectId);
  if (contactId === null) {
    // A web chat's first detail: its own contact (never joined to another by what a visitor typed; the team
    // merges when it is the same person).
    const [created] = await ctx.db.insert(contacts).values({ email, phone }).returning({ id: contacts.id });
    const [linked] = await ctx.db
      .update(conversations)
      .set({ contactId: created.id })
      .where(and(eq(conversations.id, conversationId), isNull(conversations.contactId)))
      .returning({ id: conversations.id });
    if (linked) {
      ctx.events.emit('conversation.changed', { conversationId, uuid: conv.uuid });
      return;
    }
    // Another message linked one meanwhile: use it.
    await ctx.db.delete(contacts).where(eq(contacts.id, created.id));
    const [now] = await ctx.db.select({ contactId: conversations.contactId }).from(conversations).where(eq(conversations.id, conversationId));
    contactId = now?.contactId ?? null;
    if (contactId === null) return;
  }
  await ctx.db
    .update(contacts)
    .set({
      email: sql`coalesce(${contacts.email}, ${email})`,
      phone: sql`coalesce(${contacts.phone}, ${phone})`,
      updatedAt: new Date(),
    })
    .where(eq(contacts.id, contactId));
  ctx.events.emit('conversation.changed', { conversationId, uuid: conv.uuid });
}

/**
 * The same after a message was stored and answered for: a failure here is logged, never undoes the message
 * (it is committed, and a retried delivery would find it a duplicate and capture nothing anyway).
 */
export async function captureContactDetailsAfterMessage(ctx: AppContext, conversationId: number, text: string): Promise<void> {
  try {
    await captureContactDetails(ctx, conversationId, text);
  } catch (err) {
    ctx.log.warn({ err, conversationId }, 'could not keep the email or phone number of a message on its contact');
  }
}
