import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations } from '../db/schema/index.ts';
import { buildChannelAccount, conversationOfProspect } from '../test/channel-factories.ts';
import { useTestApp, useUser } from '../test/use-test-app.ts';
import { receiveInboundEvent } from './receive.ts';

/** Issue 25: whether a prospect's conversation has ended (phase N) is read from the version it is pinned to. */
const t = useTestApp();
const admin = useUser(t, 'ADMIN');

async function call(url: string, payload: object) {
  const res = await t.request({ method: 'POST', url, as: admin.cookie, payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const message = (accountKey: string, externalId: string) =>
  ({ kind: 'message', channel: 'INSTAGRAM', accountKey, senderId: 'prospect-1', senderName: null, externalId, text: 'Hello again', sentAt: new Date() }) as const;

describe('an inbound message to a pinned conversation', () => {
  it('starts a new conversation when the old one reached its version’s last phase, though the draft has more phases', async () => {
    const typeId = (await call('/api/admin/conversation-type/create-edit', { title: 'Pinned', rolePrompt: 'You sell solar.', errorPrompt: 'Sorry.' })).conversationType.id as number;
    const phase = (index: number) => call('/api/admin/conversation-phase/create-edit', { index, prompt: `Goal ${index}`, transitionPrompt: `Move ${index}`, conversationType: { id: typeId } });
    await phase(0);
    await phase(1);
    expect(await call(`/api/admin/conversation-type/${typeId}/versions/publish`, {})).toEqual({ version: 1 });
    const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', conversationTypeId: typeId });

    expect(await receiveInboundEvent(t.ctx, message(account.pageId, 'mid-1'), { simulated: false })).toBe('stored');
    const first = (await conversationOfProspect(t.ctx, account.id, 'prospect-1'))!.conversation;
    expect(first.typeVersion).toBe(1);
    // Version 1 has two phases: phase 2 is its end. The draft gets a third phase afterwards.
    await t.ctx.db.update(conversations).set({ phase: 2 }).where(eq(conversations.id, first.id));
    await phase(2);

    expect(await receiveInboundEvent(t.ctx, message(account.pageId, 'mid-2'), { simulated: false })).toBe('stored');
    const next = (await conversationOfProspect(t.ctx, account.id, 'prospect-1'))!.conversation;
    expect(next.id).not.toBe(first.id);
    expect(next.typeVersion).toBe(1);
  });
});
