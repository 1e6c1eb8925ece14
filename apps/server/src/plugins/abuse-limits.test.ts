import { beforeAll, describe, expect, it } from 'vitest';
import { buildConversationType } from '../test/conversation-factories.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { buildUser } from '../test/factories.ts';

let typeId: number;
const t = useTestApp({ env: { CHAT_RATE_LIMIT: '3', CHAT_CONVERSATION_LIMIT: '4' } });
beforeAll(async () => {
  typeId = (await buildConversationType(t.ctx)).id;
});

const newChat = (cookie?: string, remoteAddress = '10.0.0.1') =>
  t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: typeId }, as: cookie, remoteAddress });
const write = (uuid: string, cookie?: string, remoteAddress = '10.0.0.1') =>
  t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message: 'hi' }, as: cookie, remoteAddress });

describe('chat limits per identity', () => {
  it('limits a signed-in (self-registered) user like anyone else, per user and not per address', async () => {
    const user = await buildUser(t.ctx);
    const other = await buildUser(t.ctx);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await newChat(user.cookie, '10.0.1.1')).statusCode);
    expect(codes).toEqual([201, 201, 201, 429]);
    // Another user behind the same address (an office NAT) has a budget of their own.
    expect((await newChat(other.cookie, '10.0.1.1')).statusCode).toBe(201);
    // And the first user is still limited from another address.
    const refused = await newChat(user.cookie, '10.0.1.2');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('bounds the messages one conversation takes, whoever writes them', async () => {
    const { uuid } = (await newChat(undefined, '10.0.2.1')).json();
    const writers = [undefined, (await buildUser(t.ctx, { role: 'ADMIN' })).cookie];
    const codes = [];
    // Writers alternate between an anonymous visitor on several addresses and an admin: each stays under
    // CHAT_RATE_LIMIT, the conversation's own limit (4) is what stops the fifth message.
    for (let i = 0; i < 5; i++) codes.push((await write(uuid, writers[i % 2], `10.0.2.${10 + i}`)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429]);
    const refused = await write(uuid, undefined, '10.0.2.99');
    expect(refused.json()).toMatchObject({ code: 'CONVERSATION_RATE_LIMITED' });
    expect(refused.json().error).toMatch(/too many messages/);
  });

  it('does not count messages to a conversation that does not exist', async () => {
    const res = await write('00000000-0000-4000-8000-000000000000', undefined, '10.0.3.1');
    expect(res.statusCode).toBe(404);
  });
});
