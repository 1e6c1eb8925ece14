import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { twilioClient } from '../channels/senders/twilio-client.ts';
import { conversations } from '../db/schema/index.ts';
import { MEDIA_STREAM_PATH } from '../voice/realtime/media-stream.routes.ts';
import { streamBinding } from '../voice/urls.ts';
import { buildChannelAccount } from './channel-factories.ts';
import { buildConversation, buildProspect } from './conversation-factories.ts';
import type { OpenAiRealtimeFake } from './fakes/openai-realtime-fake.ts';
import type { TwilioFake } from './fakes/twilio-fake.ts';
import { TwilioMediaClient } from './twilio-media-client.ts';
import type { TestApp } from './build-test-app.ts';

export const REALTIME_ACCOUNT_SID = `AC${'2'.repeat(32)}`;
export const REALTIME_AUTH_TOKEN = 'twilio-auth-token-kb';
const NUMBER = '+15550002222';

/**
 * Live realtime calls for tests of the bridge's tools: the app listens on loopback, and `call(typeId)` places
 * a Twilio call of a new TWILIO account on that type, connects its media stream and answers the OpenAI
 * session once its first session.update has come.
 */
export function useRealtimeCalls(t: TestApp, realtime: OpenAiRealtimeFake, twilioApi: TwilioFake) {
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
  return async function call(typeId: number, options: { crmContactId?: string } = {}) {
    const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: `${NUMBER}${typeId}`.slice(0, 15), token: REALTIME_AUTH_TOKEN, config: { accountSid: REALTIME_ACCOUNT_SID }, conversationTypeId: typeId });
    const twilioCall = await twilioClient(twilioApi.url, REALTIME_ACCOUNT_SID, REALTIME_AUTH_TOKEN).calls.create({ to: '+15557654321', from: NUMBER, url: 'http://localhost:3000/api/twilio/voice' });
    const prospect = await buildProspect(t.ctx, account.id);
    const conversation = await buildConversation(t.ctx, { conversationTypeId: typeId, prospectId: prospect.id });
    await t.ctx.db
      .update(conversations)
      .set({ callSid: twilioCall.sid, callDirection: 'outbound', useRealtimeApi: true, crmContactId: options.crmContactId ?? null })
      .where(eq(conversations.id, conversation.id));
    const path = `${MEDIA_STREAM_PATH}/${streamBinding(t.ctx.config, conversation.uuid, twilioCall.sid)}`;
    const sessionsBefore = realtime.sessions.length;
    const client = await TwilioMediaClient.connect(`${wsBase}${path}`, { signedUrl: `ws://localhost:3000${path}`, authToken: REALTIME_AUTH_TOKEN });
    clients.push(client);
    client.connected();
    client.start({ accountSid: REALTIME_ACCOUNT_SID, callSid: twilioCall.sid, customParameters: { conversationUuid: conversation.uuid } });
    const session = await realtime.session(sessionsBefore + 1);
    const update = await session.waitFor('session.update');
    return { session, conversation, update: update.session as { instructions: string; tools: { name: string; description: string; parameters: unknown }[] } };
  };
}
