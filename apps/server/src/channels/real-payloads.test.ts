import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations, handoffs, messages, prospects } from '../db/schema/index.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { buildTestApp } from '../test/build-test-app.ts';
import { useUser } from '../test/use-test-app.ts';
import { FB_TOKEN, GATEWAY_LOGIN, GATEWAY_PASSWORD, IG_TOKEN, useChannelApp, WA_TOKEN } from '../test/use-channel-app.ts';
import {
  buildChannelAccount,
  conversationOfProspect,
  makeJobsDue,
  META_APP_SECRET,
  metaMessagePayload,
  postMeta,
  postSmsGateway,
  PUBLIC_URL,
  settle,
  smsGatewayEvent,
  unansweredErrors,
  whatsAppWebhook,
} from '../test/channel-factories.ts';
import { buildAdmin } from '../test/factories.ts';
import { type MetaGraphFake, startMetaGraphFake } from '../test/fakes/meta-graph-fake.ts';
import { type OpenAiTranscriptionFake, startOpenAiTranscriptionFake } from '../test/fakes/openai-transcription-fake.ts';
import { loadReplyContext } from '../conversations/conversation-store.ts';
import { NO_LLM_REASON } from '../agent/llm/demo-policy.ts';
import { runConversationTurn } from '../agent/turn.ts';
import { TURN_JOB } from '../agent/turn.job.ts';

/**
 * Issue 19: what providers really send, as their documentation shows it, is stored and answered or visibly
 * noted — never acknowledged and dropped. Payload sources are named at each builder.
 */

let seq = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(seq += 1)}`;

const seconds = () => String(Math.floor(Date.now() / 1000));

/** A Messenger/Instagram `messaging[]` item (Messenger Platform webhooks reference: messages, message_edits). */
function messaging(object: 'instagram' | 'page', pageId: string, item: Record<string, unknown>, key: 'messaging' | 'standby' = 'messaging') {
  return { object, entry: [{ id: pageId, time: Date.now(), [key]: [{ recipient: { id: pageId }, timestamp: Date.now(), ...item }] }] };
}

describe('real-world payloads (issue 19)', () => {
  let typeId: number;

  const { t, graph, gateway } = useChannelApp();
  const admin = useUser(t, 'ADMIN');
  beforeAll(async () => {
    typeId = (await buildPlaybook(t.ctx, { initialMessage: null, followUpPrompt: null })).id;
  }, 180_000);

  const account = (type: 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP', token: string) =>
    buildChannelAccount(t.ctx, { type, pageId: unique(type === 'WHATSAPP' ? '1' : type.slice(0, 2)), token, conversationTypeId: typeId });
  const messagesOfConversation = (conversationId: number) =>
    t.ctx.db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(messages.id);

  describe('SMS Gateway for Android', () => {
    it('stores an old-format and a new-format SMS, two different SMS with the same messageId both, and answers on POST /messages', async () => {
      const gw = await buildChannelAccount(t.ctx, {
        type: 'SMS_GATEWAY',
        pageId: unique('device'),
        token: `${GATEWAY_LOGIN}:${GATEWAY_PASSWORD}`,
        config: { baseUrl: gateway.baseUrl, signingKey: 'gw-key' },
        conversationTypeId: typeId,
      });
      // The same content hash on two different messages (the vendor: messageId is not unique).
      expect((await postSmsGateway(t, 'gw-key', smsGatewayEvent(gw.pageId, '+34600111001', unique('evt'), 'New format', { messageId: 'dup' }))).statusCode).toBe(200);
      expect((await postSmsGateway(t, 'gw-key', smsGatewayEvent(gw.pageId, '+34600111001', unique('evt'), 'Second one', { messageId: 'dup' }))).statusCode).toBe(200);
      expect((await postSmsGateway(t, 'gw-key', smsGatewayEvent(gw.pageId, '+34600111002', unique('evt'), 'Old format', { format: 'old' }))).statusCode).toBe(200);
      await settle(t.ctx);
      const fresh = await conversationOfProspect(t.ctx, gw.id, '+34600111001');
      expect(fresh!.messages.filter((m) => m.role === 'PROSPECT').map((m) => m.message)).toEqual(['New format', 'Second one']);
      const old = await conversationOfProspect(t.ctx, gw.id, '+34600111002');
      expect(old!.messages[0]).toMatchObject({ role: 'PROSPECT', message: 'Old format' });
      const sends = gateway.requests.filter((r) => r.method === 'POST');
      expect(sends.length).toBeGreaterThan(0);
      for (const send of sends) {
        expect(send).toMatchObject({ path: '/3rdparty/v1/messages', authorized: true, body: { textMessage: { text: expect.any(String) }, phoneNumbers: [expect.any(String)] } });
      }
    });
  });

  describe('WhatsApp users with a username', () => {
    it('keys a phone-less user by the business-scoped id, answers with recipient, shows the username, and continues with the phone later', async () => {
      const wa = await account('WHATSAPP', WA_TOKEN);
      const userId = `US.${Date.now()}${seq}`;
      const first = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Ana', username: 'ana.b' }, user_id: userId }], [
        { from_user_id: userId, id: unique('wamid.'), timestamp: seconds(), type: 'text', text: { body: 'Hi, I found you by username' } },
      ]);
      expect((await postMeta(t, first)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, wa.id, userId);
      expect(found!.prospect).toMatchObject({ externalId: userId, scopedUserId: userId, name: 'Ana (@ana.b)' });
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
      const sent = graph.sends().filter((s) => s.path === `/v27.0/${wa.pageId}/messages`);
      expect(sent).toHaveLength(1);
      expect(sent[0].body).toMatchObject({ messaging_product: 'whatsapp', recipient: userId, type: 'text' });
      expect(sent[0].body.to).toBeUndefined();

      // Later the same user with both ids: the same prospect and conversation.
      const second = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Ana', username: 'ana.b' }, wa_id: '34600777111', user_id: userId }], [
        { from: '34600777111', from_user_id: userId, id: unique('wamid.'), timestamp: seconds(), type: 'text', text: { body: 'Me again' } },
      ]);
      expect((await postMeta(t, second)).statusCode).toBe(200);
      await settle(t.ctx);
      const rows = await t.ctx.db.select().from(prospects).where(eq(prospects.messagingAccountId, wa.id));
      expect(rows).toHaveLength(1);
      const again = await conversationOfProspect(t.ctx, wa.id, userId);
      expect(again!.conversation.id).toBe(found!.conversation.id);
      expect(again!.messages.filter((m) => m.role === 'PROSPECT').map((m) => m.message)).toEqual(['Hi, I found you by username', 'Me again']);
    });
  });

  describe('nothing vanishes', () => {
    it('turns a contacts card and a location into readable lines and keeps button payloads with the text', async () => {
      const wa = await account('WHATSAPP', WA_TOKEN);
      const from = '34600888' + String(seq).padStart(3, '0');
      const payload = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Luis' }, wa_id: from }], [
        {
          from,
          id: unique('wamid.'),
          timestamp: seconds(),
          type: 'contacts',
          contacts: [{ name: { formatted_name: 'Marta Ruiz', first_name: 'Marta' }, phones: [{ phone: '+34 600 123 456', wa_id: '34600123456', type: 'CELL' }] }],
        },
        { from, id: unique('wamid.'), timestamp: seconds(), type: 'location', location: { latitude: 40.4168, longitude: -3.7038, name: 'Oficina', address: 'Gran Via 1, Madrid' } },
        { from, id: unique('wamid.'), timestamp: seconds(), type: 'button', button: { text: 'Yes, call me', payload: 'CALL_ME' } },
        { from, id: unique('wamid.'), timestamp: seconds(), type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'slot-2', title: 'Tuesday' } } },
      ]);
      expect((await postMeta(t, payload)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, wa.id, from);
      expect(found!.messages.filter((m) => m.role === 'PROSPECT').map((m) => m.message)).toEqual([
        '[contact] Marta Ruiz: +34 600 123 456',
        '[location] Oficina, Gran Via 1, Madrid (40.4168, -3.7038)',
        'Yes, call me [payload: CALL_ME]',
        'Tuesday [payload: slot-2]',
      ]);
    });

    it('notes a WhatsApp unsupported message and an Instagram is_unsupported one on the conversation, in the monitor and the log', async () => {
      const wa = await account('WHATSAPP', WA_TOKEN);
      const from = '34600999' + String(seq).padStart(3, '0');
      const payload = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Eva' }, wa_id: from }], [
        { from, id: unique('wamid.'), timestamp: seconds(), type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown', error_data: { details: 'Message type is currently not supported.' } }] },
      ]);
      const warnings: unknown[] = [];
      const original = t.ctx.log.warn.bind(t.ctx.log);
      t.ctx.log.warn = ((obj: unknown, ...rest: unknown[]) => {
        warnings.push(obj);
        return (original as (...args: unknown[]) => void)(obj, ...rest);
      }) as typeof t.ctx.log.warn;
      try {
        expect((await postMeta(t, payload)).statusCode).toBe(200);
        await settle(t.ctx);
      } finally {
        t.ctx.log.warn = original;
      }
      const found = await conversationOfProspect(t.ctx, wa.id, from);
      expect(found!.messages).toEqual([
        expect.objectContaining({ role: 'SYSTEM', message: expect.stringContaining('the prospect sent something this channel cannot show'.replace(/^t/, 'T')) }),
      ]);
      expect((await unansweredErrors(t.ctx, found!.conversation.id))[0]).toMatchObject({ code: 'UNSUPPORTED_MESSAGE', type: 'channel' });
      expect(warnings).toContainEqual(expect.objectContaining({ channel: 'WHATSAPP', reason: 'unsupported: Message type is currently not supported.' }));
      expect(graph.sends()).toHaveLength(0);

      const ig = await account('INSTAGRAM', IG_TOKEN);
      expect((await postMeta(t, messaging('instagram', ig.pageId, { sender: { id: 'igsid-unsup' }, message: { mid: unique('mid'), is_unsupported: true } }))).statusCode).toBe(200);
      await settle(t.ctx);
      const igFound = await conversationOfProspect(t.ctx, ig.id, 'igsid-unsup');
      expect(igFound!.messages[0]).toMatchObject({ role: 'SYSTEM', message: expect.stringContaining('cannot show') });
    });
  });

  describe('edits and deletes (Instagram / Messenger)', () => {
    it('an edit before the agent answered: the message takes the new text (earlier kept) and the reply reads it; a delete marks it', async () => {
      // A debounce window the edit lands in; the test then makes the waiting turn due itself.
      const debounced = await buildPlaybook(t.ctx, { initialMessage: null, config: { replyDebounceSeconds: 60 } });
      const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: debounced.id });
      const mid = unique('mid');
      expect((await postMeta(t, metaMessagePayload('instagram', ig.pageId, 'igsid-edit', mid, 'Price for 3 seats?'))).statusCode).toBe(200);
      await settle(t.ctx);
      // The edit arrives before the turn ran.
      expect((await postMeta(t, messaging('instagram', ig.pageId, { sender: { id: 'igsid-edit' }, message_edit: { mid, text: 'Price for 5 seats?', num_edit: 1 } }))).statusCode).toBe(200);
      await settle(t.ctx);
      await makeJobsDue(t.ctx, TURN_JOB);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, ig.id, 'igsid-edit');
      const stored = await messagesOfConversation(found!.conversation.id);
      expect(stored[0]).toMatchObject({ role: 'PROSPECT', message: 'Price for 5 seats?', previousMessage: 'Price for 3 seats?' });
      expect(stored[0].editedAt).not.toBeNull();
      // The offline demo agent quotes the message it answered.
      expect(stored[1]).toMatchObject({ role: 'AGENT', message: expect.stringContaining('Price for 5 seats?') });

      const deleted = messaging('instagram', ig.pageId, { sender: { id: 'igsid-edit' }, message: { mid, is_deleted: true } });
      expect((await postMeta(t, deleted)).statusCode).toBe(200);
      await settle(t.ctx);
      const [after] = await t.ctx.db.select().from(messages).where(eq(messages.id, stored[0].id));
      expect(after.deletedAt).not.toBeNull();
      // The agent reads it as deleted, not as if current.
      const context = await loadReplyContext(t.ctx, found!.conversation.id);
      expect(context!.history[0].message).toBe('(the prospect deleted this message) Price for 5 seats?');

      // The conversation view carries the marks.
      const detail = await t.request({ method: 'GET', url: `/api/conversation/${found!.conversation.uuid}`, as: admin.cookie });
      expect(detail.json().messages[0]).toMatchObject({ previousMessage: 'Price for 3 seats?', editedAt: expect.any(String), deletedAt: expect.any(String) });
    });
  });

  describe('voice notes and images', () => {
    it('without a speech-to-text provider a voice note is kept playable and the conversation goes to a person', async () => {
      const wa = await account('WHATSAPP', WA_TOKEN);
      const from = '34600555' + String(seq).padStart(3, '0');
      const audio = Buffer.from('OggS fake voice note bytes');
      const mediaId = graph.addMedia(audio, 'audio/ogg; codecs=opus');
      const payload = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Pau' }, wa_id: from }], [
        { from, id: unique('wamid.'), timestamp: seconds(), type: 'audio', audio: { id: mediaId, mime_type: 'audio/ogg; codecs=opus', voice: true } },
      ]);
      expect((await postMeta(t, payload)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, wa.id, from);
      expect(found!.conversation.phase).toBe(-2);
      expect(found!.messages.map((m) => [m.role, m.message])).toEqual([
        ['PROSPECT', '[voice note]'],
        ['SYSTEM', expect.stringContaining('voice note arrived')],
      ]);
      expect(graph.sends()).toHaveLength(0);
      // Fetched with the account's token: the media lookup, then the download.
      expect(graph.requests.filter((r) => r.method === 'GET').map((r) => [r.path, r.token])).toEqual([
        [`/v27.0/${mediaId}`, WA_TOKEN],
        [`/media-download/${mediaId}`, WA_TOKEN],
      ]);
      const [voice] = await messagesOfConversation(found!.conversation.id);
      const played = await t.request({ method: 'GET', url: `/api/conversation/${found!.conversation.uuid}/messages/${voice.id}/media`, as: admin.cookie });
      expect(played.statusCode).toBe(200);
      expect(played.headers['content-type']).toBe('audio/ogg');
      expect(played.rawPayload.equals(audio)).toBe(true);
      // Nobody else reads it.
      expect((await t.request({ method: 'GET', url: `/api/conversation/${found!.conversation.uuid}/messages/${voice.id}/media` })).statusCode).toBe(404);
    });

    it('stores a Messenger picture ourselves (not the CDN URL) and shows it in the conversation', async () => {
      const fb = await account('FACEBOOK', FB_TOKEN);
      const png = Buffer.from('\x89PNG fake picture');
      const url = graph.cdnFile(png, 'image/png');
      const payload = messaging('page', fb.pageId, { sender: { id: 'psid-pic' }, message: { mid: unique('mid'), attachments: [{ type: 'image', payload: { url } }] } });
      expect((await postMeta(t, payload)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, fb.id, 'psid-pic');
      const [picture] = await messagesOfConversation(found!.conversation.id);
      expect(picture).toMatchObject({ role: 'PROSPECT', message: '[image]', mediaType: 'image/png' });
      expect(picture.message).not.toContain(url);
      const detail = await t.request({ method: 'GET', url: `/api/conversation/${found!.conversation.uuid}`, as: admin.cookie });
      expect(detail.json().messages[0]).toMatchObject({ mediaType: 'image/png', hasMedia: true });
      const shown = await t.request({ method: 'GET', url: `/api/conversation/${found!.conversation.uuid}/messages/${picture.id}/media`, as: admin.cookie });
      expect(shown.rawPayload.equals(png)).toBe(true);
    });
  });

  describe('Graph API version and Messenger handover', () => {
    it('calls the current version by default and stores a standby echo as a person writing (the AI pauses)', async () => {
      const fb = await account('FACEBOOK', FB_TOKEN);
      expect((await postMeta(t, metaMessagePayload('page', fb.pageId, 'psid-standby', unique('mid'), 'Hello'))).statusCode).toBe(200);
      await settle(t.ctx);
      expect(graph.sends().map((s) => s.path)).toEqual(['/v27.0/me/messages']);
      // Another app (Page inbox) answers while it holds the thread: Meta sends it as a standby echo.
      const echo = { object: 'page', entry: [{ id: fb.pageId, time: Date.now(), standby: [{ sender: { id: fb.pageId }, recipient: { id: 'psid-standby' }, timestamp: Date.now(), message: { mid: unique('mid'), text: 'A person here', is_echo: true, app_id: 263902037430900 } }] }] };
      expect((await postMeta(t, echo)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, fb.id, 'psid-standby');
      expect(found!.messages.at(-1)).toMatchObject({ role: 'AGENT', message: 'A person here', writtenByHuman: true });
      expect(found!.conversation.aiPaused).toBe(true);
    });

    it('a prospect message in standby (another app holds the thread) is a take-over hand-off, answered by the person\'s standby echo', async () => {
      const fb = await account('FACEBOOK', FB_TOKEN);
      const sent = Date.UTC(2030, 0, 2, 10, 0, 0);
      const standby = (item: Record<string, unknown>) => ({ object: 'page', entry: [{ id: fb.pageId, time: Date.now(), standby: [item] }] });
      const asked = standby({ sender: { id: 'psid-held' }, recipient: { id: fb.pageId }, timestamp: sent, message: { mid: unique('mid'), text: 'Anyone there?' } });
      expect((await postMeta(t, asked)).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, fb.id, 'psid-held');
      expect(found!.conversation.aiPaused).toBe(true);
      const handoffsOf = () =>
        t.ctx.db.select({ reason: handoffs.reason, handedAt: handoffs.handedAt, answeredAt: handoffs.answeredAt }).from(handoffs)
          .where(eq(handoffs.conversationId, found!.conversation.id));
      expect(await handoffsOf()).toEqual([{ reason: 'TAKEN_OVER', handedAt: new Date(sent), answeredAt: null }]);
      // A second message while the other app still holds the thread is the same hand-off.
      expect((await postMeta(t, standby({ sender: { id: 'psid-held' }, recipient: { id: fb.pageId }, timestamp: sent + 1000, message: { mid: unique('mid'), text: 'Hello?' } }))).statusCode).toBe(200);
      const answered = sent + 90_000;
      const echo = standby({ sender: { id: fb.pageId }, recipient: { id: 'psid-held' }, timestamp: answered, message: { mid: unique('mid'), text: 'A person here', is_echo: true, app_id: 263902037430900 } });
      expect((await postMeta(t, echo)).statusCode).toBe(200);
      await settle(t.ctx);
      expect(await handoffsOf()).toEqual([{ reason: 'TAKEN_OVER', handedAt: new Date(sent), answeredAt: new Date(answered) }]);
    });
  });
});

describe('speech to text and the demo agent (issue 19)', () => {
  let graph: MetaGraphFake;
  let stt: OpenAiTranscriptionFake;

  beforeAll(async () => {
    graph = await startMetaGraphFake({ tokens: [WA_TOKEN, IG_TOKEN] });
    stt = await startOpenAiTranscriptionFake();
  });
  afterAll(async () => Promise.all([graph.close(), stt.close()]));

  it('transcribes a WhatsApp voice note with TRANSCRIBE_MODEL on the configured base URL: the transcript is what the agent reads', async () => {
    const t = await buildTestApp({
      META_APP_SECRET,
      META_GRAPH_URL: graph.url,
      OPENAI_API_KEY: stt.apiKey,
      OPENAI_BASE_URL: stt.baseUrl,
      TRANSCRIBE_MODEL: 'gpt-4o-mini-transcribe',
    });
    try {
      const typeId = (await buildPlaybook(t.ctx, { initialMessage: null, followUpPrompt: null })).id;
      // The turn itself is not this test's subject (the fake speaks only speech to text): the type pauses it.
      const wa = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: unique('2'), token: WA_TOKEN, conversationTypeId: typeId });
      const audio = Buffer.from('OggS voice note for the transcriber');
      const mediaId = graph.addMedia(audio, 'audio/ogg');
      const payload = whatsAppWebhook(wa.pageId, [{ profile: { name: 'Joan' }, wa_id: '34600444000' }], [
        { from: '34600444000', id: unique('wamid.'), timestamp: seconds(), type: 'audio', audio: { id: mediaId, mime_type: 'audio/ogg; codecs=opus', voice: true } },
      ]);
      expect((await postMeta(t, payload)).statusCode).toBe(200);
      await t.ctx.jobs.drain();
      expect(stt.requests).toEqual([expect.objectContaining({ model: 'gpt-4o-mini-transcribe', fileSize: audio.length })]);
      const [prospect] = await t.ctx.db.select().from(prospects).where(eq(prospects.externalId, '34600444000'));
      const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.prospectId, prospect.id));
      const [voice] = await t.ctx.db.select().from(messages).where(eq(messages.conversationId, conversation.id)).orderBy(messages.id).limit(1);
      expect(voice.message).toBe(`[voice note] ${`Agent: Hello, thanks for taking my call.\nProspect: Sure, tell me more about the offer.\nAgent: It saves you two hours a day. (${audio.length} bytes of audio)`}`);
      expect(voice.mediaKey).toMatch(/\.ogg$/);
    } finally {
      await t.close();
    }
  }, 180_000);

  it('without an LLM a real prospect gets no demo text: needs a person, with the reason in the monitor; a simulated one is answered', async () => {
    const t = await buildTestApp({ META_APP_SECRET, META_GRAPH_URL: graph.url, INSTAGRAM_GRAPH_URL: graph.url, DEMO_AGENT_ON_LIVE_CHANNELS: 'false' });
    try {
      const typeId = (await buildPlaybook(t.ctx, { initialMessage: null, followUpPrompt: null })).id;
      const ig = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: unique('IG'), token: IG_TOKEN, conversationTypeId: typeId });
      graph.reset();
      expect((await postMeta(t, metaMessagePayload('instagram', ig.pageId, 'igsid-real', unique('mid'), 'Is this a bot?'))).statusCode).toBe(200);
      await settle(t.ctx);
      const found = await conversationOfProspect(t.ctx, ig.id, 'igsid-real');
      expect(found!.conversation.phase).toBe(-2);
      expect(found!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'SYSTEM']);
      expect(found!.outbox).toHaveLength(0);
      expect(graph.sends()).toHaveLength(0);
      expect((await unansweredErrors(t.ctx, found!.conversation.id))[0]).toMatchObject({ message: NO_LLM_REASON, code: 'no-llm' });

      // A person hands it back to a working phase (still no LLM): the turn and a follow-up send no demo text.
      const admin = await buildAdmin(t.ctx);
      const handBack = await t.request({ method: 'PATCH', url: `/api/conversation/${found!.conversation.id}`, as: admin.cookie, payload: { phase: 0 } });
      expect(handBack.statusCode).toBe(200);
      await settle(t.ctx);
      await runConversationTurn(t.ctx, found!.conversation.id);
      expect((await conversationOfProspect(t.ctx, ig.id, 'igsid-real'))!.conversation.phase).toBe(-2);
      // The Follow-up button on a conversation put back to work behind the API's back (no turn queued).
      await t.ctx.db.update(conversations).set({ phase: 0 }).where(eq(conversations.id, found!.conversation.id));
      const followUp = await t.request({ method: 'POST', url: `/api/conversation/${found!.conversation.uuid}/follow-up`, as: admin.cookie });
      expect(followUp.statusCode).toBe(409);
      expect(followUp.json()).toMatchObject({ code: 'NO_LLM', error: NO_LLM_REASON });
      const after = await conversationOfProspect(t.ctx, ig.id, 'igsid-real');
      expect(after!.conversation.phase).toBe(-2);
      expect(after!.messages.map((m) => m.role)).not.toContain('AGENT');
      expect(after!.outbox).toHaveLength(0);
      expect(graph.sends()).toHaveLength(0);
      expect((await unansweredErrors(t.ctx, found!.conversation.id)).at(-1)).toMatchObject({ message: NO_LLM_REASON });

      const simulated = await t.request({
        method: 'POST',
        url: '/api/meta-api/webhook',
        headers: { origin: PUBLIC_URL, 'content-type': 'application/json' },
        as: admin.cookie,
        payload: JSON.stringify(metaMessagePayload('instagram', ig.pageId, 'igsid-sim', unique('mid'), 'Simulated hello')),
      });
      expect(simulated.statusCode).toBe(200);
      await settle(t.ctx);
      const sim = await conversationOfProspect(t.ctx, ig.id, 'igsid-sim');
      expect(sim!.messages.map((m) => m.role)).toEqual(['PROSPECT', 'AGENT']);
      const count = await t.ctx.db.execute(sql`select count(*)::int as n from outbox`);
      expect(Number((count as unknown as { rows: { n: number }[] }).rows[0].n)).toBe(1);
    } finally {
      await t.close();
    }
  }, 180_000);
});
