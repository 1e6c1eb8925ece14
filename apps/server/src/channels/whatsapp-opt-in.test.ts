import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sendFollowUp } from '../agent/follow-up.ts';
import { consentRecords, conversations, messages, outbox } from '../db/schema/index.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { buildChannelAccount, conversationOfProspect, deliverWaiting, postMeta, settle, whatsAppPayload } from '../test/channel-factories.ts';
import { unique, useChannelApp, WA_TOKEN } from '../test/use-channel-app.ts';
import { useUser } from '../test/use-test-app.ts';

/**
 * WhatsApp opt-in (issue 23, docs/compliance.md): a business-initiated message outside the 24-hour window
 * needs an approved template AND a recorded opt-in — from the prospect writing first, the API/import, or a
 * person with a note — else 409 NO_WHATSAPP_OPT_IN (or, at the send, FAILED with that code).
 */
const TEMPLATE = { outsideWindow: { name: 'follow_up_1', language: 'en_US' } };

describe('WhatsApp opt-in', () => {
  const { t, graph } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  const normal = useUser(t);

  async function setup() {
    const type = await buildPlaybook(t.ctx, { initialMessage: 'Hi! Still interested in widgets?', followUpPrompt: 'Nudge them.', config: { aiDisclosure: false } });
    const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('PNID'), token: WA_TOKEN, conversationTypeId: type.id, config: { templates: TEMPLATE } });
    return { type, wa };
  }
  const consents = (address: string) => t.ctx.db.select().from(consentRecords).where(eq(consentRecords.address, address)).orderBy(consentRecords.id);
  const lead = (payload: object) => t.request({ method: 'POST', url: '/api/leads', as: admin.cookie, payload });

  it('a lead: 409 NO_WHATSAPP_OPT_IN without an opt-in (nothing sent); with whatsappOptIn the consent is recorded and the template goes out', async () => {
    const { type } = await setup();
    const refused = await lead({ conversationTypeId: type.id, phone: '+34600222001' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'NO_WHATSAPP_OPT_IN', error: expect.stringMatching(/^Messaging this number on WhatsApp is not allowed: WhatsApp allows a business/) });
    expect(await consents('+34600222001')).toEqual([]);

    const ok = await lead({ conversationTypeId: type.id, phone: '+34600222001', whatsappOptIn: true, optInNote: 'website form checkbox' });
    expect(ok.statusCode).toBe(201);
    await deliverWaiting(t.ctx);
    expect(graph.sends()).toHaveLength(1);
    expect(graph.sends()[0].body).toMatchObject({ type: 'template', template: { name: 'follow_up_1' } });
    expect(await consents('+34600222001')).toEqual([expect.objectContaining({ channel: 'whatsapp', granted: true, source: 'api', note: 'website form checkbox', byUserId: null })]);
  });

  it('the prospect writing first is their opt-in; a person withdraws it (follow-up outside 24 h: 409, send FAILED) and records it again with a note', async () => {
    const { wa } = await setup();
    const digits = '34600222002';
    await postMeta(t, whatsAppPayload(wa.pageId, digits, `wamid.${unique('w')}`, 'Hello, tell me more'));
    await settle(t.ctx);
    expect(await consents(`+${digits}`)).toEqual([expect.objectContaining({ granted: true, source: 'prospect wrote first' })]);
    const found = (await conversationOfProspect(t.ctx, wa.id, digits))!;
    const id = found.conversation.id;
    // Two days pass: the window is closed, so anything we send now is business-initiated.
    await t.ctx.db.update(messages).set({ dateSent: new Date(Date.now() - 48 * 3_600_000) }).where(eq(messages.conversationId, id));

    const consent = (payload: object, cookie?: string) => t.request({ method: 'POST', url: `/api/conversation/${id}/consent`, as: cookie, payload });
    expect((await consent({ channel: 'whatsapp', granted: false, note: 'Asked on the phone not to get WhatsApp offers.' }, admin.cookie)).statusCode).toBe(200);
    await expect(sendFollowUp(t.ctx, id, { manual: true })).rejects.toMatchObject({ status: 409, code: 'NO_WHATSAPP_OPT_IN' });
    // A person's message outside the window goes as the template too, and fails at the send without an opt-in.
    graph.reset();
    const written = await t.request({ method: 'POST', url: `/api/conversation/${found.conversation.uuid}/written-message`, as: admin.cookie, payload: { message: 'Any news?' } });
    expect(written.statusCode).toBe(200);
    await deliverWaiting(t.ctx);
    expect(graph.sends()).toHaveLength(0);
    const [failed] = await t.ctx.db.select().from(outbox).where(eq(outbox.conversationId, id)).orderBy(outbox.id).then((rows) => rows.slice(-1));
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'NO_WHATSAPP_OPT_IN' });

    expect((await consent({ channel: 'whatsapp', granted: true, note: 'Opted in again on the phone call of today.' }, admin.cookie)).statusCode).toBe(200);
    await t.ctx.db.update(conversations).set({ aiPaused: false }).where(eq(conversations.id, id)); // the person hands back to the AI
    expect(await sendFollowUp(t.ctx, id, { manual: true })).toBe('sent');
    await deliverWaiting(t.ctx);
    expect(graph.sends().map((s) => s.body.type)).toEqual(['template']);

    // Audit: who, when, what.
    const audit = await t.request({ method: 'GET', url: `/api/admin/compliance/consents?address=${digits}`, as: admin.cookie });
    expect(audit.statusCode).toBe(200);
    expect(audit.json()).toMatchObject({
      total: 3,
      items: [
        { granted: true, source: 'person', by: admin.email, note: 'Opted in again on the phone call of today.', at: expect.any(String) },
        { granted: false, source: 'person', by: admin.email },
        { granted: true, source: 'prospect wrote first', by: null },
      ],
    });

    // Errors: 400 without a note or another channel, 401 anonymous, 404 without access / unknown.
    expect((await consent({ channel: 'whatsapp', granted: true, note: ' ' }, admin.cookie)).statusCode).toBe(400);
    expect((await consent({ channel: 'sms', granted: true, note: 'Some note here' }, admin.cookie)).statusCode).toBe(400);
    expect((await consent({ channel: 'whatsapp', granted: true, note: 'Some note here' })).statusCode).toBe(401);
    expect((await consent({ channel: 'whatsapp', granted: true, note: 'Some note here' }, normal.cookie)).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/conversation/999999/consent', as: admin.cookie, payload: { channel: 'whatsapp', granted: true, note: 'Some note here' } })).statusCode).toBe(404);
  });

  it('GET /api/conversation/{uuid} shows the prospect\'s WhatsApp opt-in to whoever may change the conversation', async () => {
    const { type, wa } = await setup();
    const digits = '34600222003';
    await postMeta(t, whatsAppPayload(wa.pageId, digits, `wamid.${unique('w')}`, 'Hi there'));
    await settle(t.ctx);
    const { conversation } = (await conversationOfProspect(t.ctx, wa.id, digits))!;
    const detail = async (cookie?: string) => (await t.request({ method: 'GET', url: `/api/conversation/${conversation.uuid}`, as: cookie })).json();
    expect((await detail(admin.cookie)).whatsappOptIn).toEqual({ granted: true, source: 'prospect wrote first', at: expect.any(String) });
    await t.request({ method: 'POST', url: `/api/conversation/${conversation.id}/consent`, as: admin.cookie, payload: { channel: 'whatsapp', granted: false, note: 'Asked not to.' } });
    expect((await detail(admin.cookie)).whatsappOptIn).toMatchObject({ granted: false, source: 'person' });
    // A web chat has no phone number: no opt-in to show.
    const chat = await t.request({ method: 'POST', url: '/api/conversation/new', as: admin.cookie, payload: { conversationTypeId: type.id } });
    expect(chat.statusCode, chat.body).toBeLessThan(300);
    const web = (await t.request({ method: 'GET', url: `/api/conversation/${chat.json().uuid}`, as: admin.cookie })).json();
    expect(web).not.toHaveProperty('whatsappOptIn');
  });

  it('GET /api/admin/compliance/consents: 401 anonymous, 403 for a non-admin, 400 for a bad query', async () => {
    const list = (query: string, cookie?: string) => t.request({ method: 'GET', url: `/api/admin/compliance/consents${query}`, as: cookie });
    expect((await list('')).statusCode).toBe(401);
    expect((await list('', normal.cookie)).statusCode).toBe(403);
    expect((await list('?limit=0', admin.cookie)).statusCode).toBe(400);
  });
});
