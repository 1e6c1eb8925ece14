import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { twilioClient } from '../../channels/senders/twilio-client.ts';
import { conversations } from '../../db/schema/index.ts';
import { buildChannelAccount } from '../../test/channel-factories.ts';
import { buildConversation, buildConversationType, buildProspect } from '../../test/conversation-factories.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { startOpenAiRealtimeFake } from '../../test/fakes/openai-realtime-fake.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { attachCollections, buildCollection } from '../../test/knowledge-factories.ts';
import { TwilioMediaClient } from '../../test/twilio-media-client.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { streamBinding } from '../urls.ts';
import { MEDIA_STREAM_PATH } from './media-stream.routes.ts';

const ACCOUNT_SID = `AC${'2'.repeat(32)}`;
const AUTH_TOKEN = 'twilio-auth-token-kb';
const NUMBER = '+15550002222';

const llm = useFake(new OpenAiFake());
const realtime = useFake(() => startOpenAiRealtimeFake({ apiKey: llm.env().OPENAI_API_KEY }));
const twilioApi = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
const t = useTestApp({ env: () => ({ ...llm.env(), ...realtime.env(), TWILIO_API_URL: twilioApi.url }) });
const admin = useUser(t, 'ADMIN');
const clients: TwilioMediaClient[] = [];
let wsBase = '';

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsBase = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await t?.close();
});

/** A live realtime call of a new type (with these knowledge collections), its session configured. */
async function liveCallOfType(collectionIds: number[]) {
  const type = await buildConversationType(t.ctx, { phases: 1 });
  if (collectionIds.length) expect((await attachCollections(t, admin.cookie, type.id, collectionIds)).statusCode).toBe(200);
  const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: `${NUMBER}${type.id}`.slice(0, 15), token: AUTH_TOKEN, config: { accountSid: ACCOUNT_SID }, conversationTypeId: type.id });
  const call = await twilioClient(twilioApi.url, ACCOUNT_SID, AUTH_TOKEN).calls.create({ to: '+15557654321', from: NUMBER, url: 'http://localhost:3000/api/twilio/voice' });
  const prospect = await buildProspect(t.ctx, account.id);
  const conversation = await buildConversation(t.ctx, { conversationTypeId: type.id, prospectId: prospect.id });
  await t.ctx.db.update(conversations).set({ callSid: call.sid, callDirection: 'outbound', useRealtimeApi: true }).where(eq(conversations.id, conversation.id));
  const path = `${MEDIA_STREAM_PATH}/${streamBinding(t.ctx.config, conversation.uuid, call.sid)}`;
  const sessionsBefore = realtime.sessions.length;
  const client = await TwilioMediaClient.connect(`${wsBase}${path}`, { signedUrl: `ws://localhost:3000${path}`, authToken: AUTH_TOKEN });
  clients.push(client);
  client.connected();
  client.start({ accountSid: ACCOUNT_SID, callSid: call.sid, customParameters: { conversationUuid: conversation.uuid } });
  const session = await realtime.session(sessionsBefore + 1);
  const update = await session.waitFor('session.update');
  return { session, update: update.session as { instructions: string; tools: { name: string }[] } };
}

describe('realtime voice agent: the search_knowledge tool', () => {
  it('a type with knowledge gets the tool; its function_call is answered with the relevant passages, then a response', async () => {
    const collection = await buildCollection(t, admin.cookie, [
      ['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.'],
      ['Which colours do the widgets come in?', 'Widgets come in red, blue and green.'],
    ]);
    const { session, update } = await liveCallOfType([collection]);
    expect(update.tools.map((tool) => tool.name)).toContain('search_knowledge');
    expect(update.instructions).toMatch(/call search_knowledge/);
    await session.waitFor('response.create');

    session.responseCreated('resp_1');
    const callId = session.functionCall('resp_1', 'search_knowledge', { query: 'what does installation cost' });
    session.responseDone('resp_1');
    const output = await session.waitFor('conversation.item.create');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: callId });
    const answer = JSON.parse((output.item as { output: string }).output);
    expect(answer).toEqual({ ok: true, passages: [{ text: expect.stringContaining('480 euros'), source: 'How much does installation cost?' }] });
    await session.waitFor('response.create', 2);

    session.responseCreated('resp_2');
    const none = session.functionCall('resp_2', 'search_knowledge', { query: 'do you ship to Norway' });
    session.responseDone('resp_2');
    const empty = await session.waitFor('conversation.item.create', 2);
    expect(empty.item).toMatchObject({ call_id: none });
    expect(JSON.parse((empty.item as { output: string }).output)).toMatchObject({ ok: true, passages: [] });
  });

  it('a type without knowledge has no such tool', async () => {
    const { update } = await liveCallOfType([]);
    expect(update.tools.map((tool) => tool.name)).not.toContain('search_knowledge');
  });
});
