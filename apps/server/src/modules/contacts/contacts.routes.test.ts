import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { receiveInboundEvent } from '../../channels/receive.ts';
import { buildChannelAccount, conversationOfProspect } from '../../test/channel-factories.ts';
import { contacts } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { readConversationDetail } from '../../test/conversation-requests.ts';
import { type AccountConversationSeed, buildAccountConversation, buildConversationType, grantAccount } from '../../test/conversation-factories.ts';
import { findEmail, findPhone } from './contact-capture.ts';
import { parseTypedPhone } from './contacts.service.ts';

/** Contacts (issue 24): edit, merge, find; the email and phone a visitor types are kept. */

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const alice = useUser(t);
const stranger = useUser(t);

const prospectConversation = (seed?: AccountConversationSeed) => buildAccountConversation(t.ctx, seed);

const detail = (uuid: string, as: string) => readConversationDetail(t, uuid, as);
const patch = (id: number, payload: object, as?: string) => t.request({ method: 'PATCH', url: `/api/contacts/${id}`, payload, as });
const merge = (id: number, otherContactId: number, as?: string) =>
  t.request({ method: 'POST', url: `/api/contacts/${id}/merge`, payload: { otherContactId }, as });
const phoneNumber = () => `+1213${String(Math.floor(1_000_000 + Math.random() * 8_999_999))}`;

describe('PATCH /api/contacts/{id}', () => {
  it('an ADMIN and a granted team member change name, email and phone (parsed into E.164); the panel shows them', async () => {
    const { conversation } = await prospectConversation({ type: 'INSTAGRAM', name: 'ana_ig', grant: [alice.id] });
    const contactId = (await detail(conversation.uuid, admin.cookie)).contact.id;

    const byAdmin = await patch(contactId, { name: 'Ana Silva', email: ' Ana@Example.com ', phone: '+1 (213) 373-4253' }, admin.cookie);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect(byAdmin.json()).toMatchObject({ id: contactId, name: 'Ana Silva', email: 'ana@example.com', phone: '+12133734253' });
    expect((await detail(conversation.uuid, alice.cookie)).contact).toMatchObject({ name: 'Ana Silva', email: 'ana@example.com', phone: '+12133734253' });

    const byAlice = await patch(contactId, { name: 'Ana S.', email: '' }, alice.cookie);
    expect(byAlice.statusCode, byAlice.body).toBe(200);
    const seen = (await detail(conversation.uuid, alice.cookie)).contact;
    expect(seen).toMatchObject({ name: 'Ana S.', phone: '+12133734253' });
    expect(seen.email).toBeUndefined();
  });

  it('answers 400 in words, 401 without a session, 403 outside the grants, 404 for an unknown contact', async () => {
    const granted = await prospectConversation({ grant: [alice.id] });
    const contactId = (await detail(granted.conversation.uuid, admin.cookie)).contact.id;
    const badPhone = await patch(contactId, { phone: '12' }, alice.cookie);
    expect(badPhone.statusCode).toBe(400);
    expect(badPhone.json()).toMatchObject({ code: 'INVALID_PHONE', error: expect.stringMatching(/country code/) });
    // Without its country code a number is one of DEFAULT_PHONE_COUNTRY (US in tests).
    expect((await patch(contactId, { phone: '(213) 373-4253' }, alice.cookie)).json().phone).toBe('+12133734253');
    expect((await patch(contactId, { phone: '020 7946 0958' }, alice.cookie)).json().code).toBe('INVALID_PHONE');
    const badEmail = await patch(contactId, { email: 'not-an-email' }, alice.cookie);
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().error).toMatch(/email address/);
    expect((await patch(contactId, {}, alice.cookie)).statusCode).toBe(400);

    expect((await patch(contactId, { name: 'X' })).statusCode).toBe(401);
    const refused = await patch(contactId, { name: 'X' }, stranger.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    const missing = await patch(2_000_000_000, { name: 'X' }, admin.cookie);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('CONTACT_NOT_FOUND');
  });

  it('refuses a team member a contact with a handle on an account not granted to them (403)', async () => {
    const phone = phoneNumber();
    const sms = await prospectConversation({ type: 'SMS_GATEWAY', externalId: phone, grant: [alice.id] });
    const other = await prospectConversation({ type: 'SMS_GATEWAY', externalId: phone });
    const contactId = (await detail(sms.conversation.uuid, admin.cookie)).contact.id;
    await detail(other.conversation.uuid, admin.cookie); // joins the same contact by number
    expect((await patch(contactId, { name: 'Bo' }, alice.cookie)).statusCode).toBe(403);
    expect((await patch(contactId, { name: 'Bo' }, admin.cookie)).statusCode).toBe(200);
  });
});

describe('POST /api/contacts/{id}/merge', () => {
  it('merges the same person on SMS and Instagram: one contact, both conversations and handles in the panel', async () => {
    const phone = phoneNumber();
    const sms = await prospectConversation({ type: 'SMS_GATEWAY', externalId: phone, grant: [alice.id] });
    const ig = await prospectConversation({ type: 'INSTAGRAM', name: 'Bo Insta', grant: [alice.id] });
    const smsContact = (await detail(sms.conversation.uuid, alice.cookie)).contact.id;
    const igContact = (await detail(ig.conversation.uuid, alice.cookie)).contact.id;
    expect(smsContact).not.toBe(igContact);

    const found = await t.request({ method: 'GET', url: `/api/contacts?q=${encodeURIComponent('insta')}`, as: alice.cookie });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().map((c: { id: number }) => c.id)).toContain(igContact);
    expect((await t.request({ method: 'GET', url: `/api/contacts?q=${phone.slice(-7)}`, as: alice.cookie })).json().map((c: { id: number }) => c.id)).toContain(smsContact);
    expect((await t.request({ method: 'GET', url: '/api/contacts?q=insta', as: stranger.cookie })).json()).toEqual([]);

    const merged = await merge(smsContact, igContact, alice.cookie);
    expect(merged.statusCode, merged.body).toBe(200);
    // The SMS contact had no name: it takes the Instagram one's.
    expect(merged.json()).toMatchObject({ id: smsContact, name: 'Bo Insta', phone });
    for (const uuid of [sms.conversation.uuid, ig.conversation.uuid]) {
      const contact = (await detail(uuid, alice.cookie)).contact;
      expect(contact.id).toBe(smsContact);
      expect(contact.conversations.map((c: { uuid: string }) => c.uuid).sort()).toEqual([sms.conversation.uuid, ig.conversation.uuid].sort());
      expect(contact.handles.map((h: { channel: string }) => h.channel).sort()).toEqual(['INSTAGRAM', 'SMS_GATEWAY']);
    }
    expect(await t.ctx.db.select().from(contacts).where(eq(contacts.id, igContact))).toHaveLength(0);
    const gone = await merge(smsContact, igContact, alice.cookie);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('CONTACT_NOT_FOUND');
  });

  it('answers 400 for itself or a bad id, 401, 403 when either contact is outside the grants, 404 unknown', async () => {
    const mine = await prospectConversation({ grant: [alice.id] });
    const theirs = await prospectConversation();
    const mineId = (await detail(mine.conversation.uuid, admin.cookie)).contact.id;
    const theirsId = (await detail(theirs.conversation.uuid, admin.cookie)).contact.id;
    expect((await merge(mineId, mineId, alice.cookie)).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: `/api/contacts/${mineId}/merge`, payload: { otherContactId: 'x' }, as: alice.cookie })).statusCode).toBe(400);
    expect((await merge(mineId, theirsId)).statusCode).toBe(401);
    expect((await merge(mineId, theirsId, alice.cookie)).statusCode).toBe(403);
    expect((await merge(theirsId, mineId, alice.cookie)).statusCode).toBe(403);
    expect((await merge(mineId, 2_000_000_000, alice.cookie)).statusCode).toBe(404);
    expect((await merge(2_000_000_000, mineId, admin.cookie)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/contacts?q=', as: alice.cookie })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/contacts?q=ana' })).statusCode).toBe(401);
  });
});

describe('what a visitor types about themselves', () => {
  it('finds an email and a phone number with its country code in running text', () => {
    expect(findEmail('reach me at Ana.Silva+work@Example.co.uk.')).toBe('ana.silva+work@example.co.uk');
    expect(findEmail('no email @ here')).toBeNull();
    expect(findPhone('call +1 (213) 373-4253 after 5', 'US')).toBe('+12133734253');
    expect(findPhone('order 12345 of 2024-05-01', 'US')).toBeNull();
  });

  it('reads a number without its country code as one of DEFAULT_PHONE_COUNTRY', () => {
    expect(findPhone('555 123 4567', 'US')).toBe('+15551234567');
    expect(findPhone('you can call me at (415) 555-0100 tomorrow', 'US')).toBe('+14155550100');
    expect(findPhone('my cell: 555-123-4567.', 'US')).toBe('+15551234567');
    expect(findPhone('020 7946 0958', 'GB')).toBe('+442079460958');
    expect(findPhone('020 7946 0958', 'US')).toBeNull();
    // A number with its own country code keeps it whatever the default.
    expect(findPhone('+44 20 7946 0958', 'US')).toBe('+442079460958');
    // A bare run of digits in no assigned range is a reference, not a phone number.
    expect(findPhone('ticket 5551234567', 'US')).toBeNull();
  });

  it('parses a typed number with the default country, keeping an explicit one', () => {
    expect(parseTypedPhone('(415) 555-0100', 'US')).toBe('+14155550100');
    expect(parseTypedPhone('020 7946 0958', 'GB')).toBe('+442079460958');
    expect(parseTypedPhone('0049 30 901820', 'US')).toBe('+4930901820');
    expect(() => parseTypedPhone('12', 'US')).toThrow(/country code/);
  });

  it('keeps the email and phone a web-chat visitor types on its contact, shown to an ADMIN', async () => {
    const type = await buildConversationType(t.ctx, { phases: 2 });
    const { uuid } = (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: type.id } })).json();
    expect((await detail(uuid, admin.cookie)).contact).toBeNull();
    const write = (message: string) => t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message } });
    expect((await write('Hi, I am Ana. My email is ana.web@example.com')).statusCode).toBe(200);
    expect((await detail(uuid, admin.cookie)).contact).toMatchObject({ email: 'ana.web@example.com', handles: [] });
    expect((await write('and my phone is +44 20 7946 0958, or ana.other@example.com')).statusCode).toBe(200);
    const contact = (await detail(uuid, admin.cookie)).contact;
    // A later email does not replace the first (a teammate's edit is never overwritten either).
    expect(contact).toMatchObject({ email: 'ana.web@example.com', phone: '+442079460958' });
    expect(contact.conversations.map((c: { uuid: string; channel: string | null }) => [c.uuid, c.channel])).toEqual([[uuid, null]]);
    // A visitor who writes their number without a country code (DEFAULT_PHONE_COUNTRY is US in tests).
    const other = (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: type.id } })).json().uuid;
    const said = await t.request({ method: 'POST', url: `/api/conversation/${other}/written-message`, payload: { message: 'Sure, call me on (415) 555-0100' } });
    expect(said.statusCode).toBe(200);
    expect((await detail(other, admin.cookie)).contact).toMatchObject({ phone: '+14155550100' });
    // The visitor's own view never carries the contact.
    expect((await t.request({ method: 'GET', url: `/api/conversation/${uuid}` })).json().contact ?? null).toBeNull();
  });

  it('keeps the email and number an Instagram prospect writes (the channel receive path) on their contact', async () => {
    const type = await buildConversationType(t.ctx, { phases: 2 });
    const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', conversationTypeId: type.id });
    await grantAccount(t.ctx, alice.id, account.id);
    const event = (externalId: string, text: string) =>
      ({ kind: 'message', channel: 'INSTAGRAM', accountKey: account.pageId, senderId: 'ig-person-1', senderName: null, externalId, text, sentAt: new Date() }) as const;
    expect(await receiveInboundEvent(t.ctx, event('mid-c1', 'Hi! Mail me at bo@example.org'), { simulated: false })).toBe('stored');
    expect(await receiveInboundEvent(t.ctx, event('mid-c2', 'or text +1 213 373 4253'), { simulated: false })).toBe('stored');
    const { conversation } = (await conversationOfProspect(t.ctx, account.id, 'ig-person-1'))!;
    expect((await detail(conversation.uuid, alice.cookie)).contact).toMatchObject({ email: 'bo@example.org', phone: '+12133734253' });
  });
});
