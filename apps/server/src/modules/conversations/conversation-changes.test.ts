import { describe, expect, it } from 'vitest';
import { buildPlaybook, buildProspectConversation, conversationRow, unansweredOf } from '../../test/agent-factories.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { settle } from '../../test/channel-factories.ts';
import { receiveProspectMessage } from '../../agent/agent.service.ts';

/**
 * Conversation changes through the API (issue 18 item 10): one conversation.changed per change (the services
 * emit it themselves), a type change that leaves the phase meaningless is refused, and Take over closes the
 * pending follow-up entry of the unanswered list (item 6).
 */
describe('conversation changes', () => {
  const t = useTestApp();
  const admin = useUser(t, 'ADMIN');

  /** Counts conversation.changed of one conversation while `run` runs. */
  async function changesDuring(id: number, run: () => Promise<void>): Promise<number> {
    let n = 0;
    const off = t.ctx.events.on('conversation.changed', (event) => {
      if (event.conversationId === id) n += 1;
    });
    try {
      await run();
    } finally {
      off();
    }
    return n;
  }
  const call = (method: 'PATCH' | 'POST', url: string, payload?: Record<string, unknown>) => t.request({ method, url, as: admin.cookie, payload });

  it('emits conversation.changed once per phase change, hand back and written message', async () => {
    const type = await buildPlaybook(t.ctx);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    const id = conversation.id;
    expect(await changesDuring(id, async () => expect((await call('PATCH', `/api/conversation/${id}`, { phase: 9999 })).statusCode).toBe(200))).toBe(1);
    expect(await changesDuring(id, async () => expect((await call('POST', `/api/conversation/${id}/take-over`)).statusCode).toBe(200))).toBe(1);
    expect(await changesDuring(id, async () => expect((await call('POST', `/api/conversation/${id}/hand-back`, { phase: 1 })).statusCode).toBe(200))).toBe(1);
    const written = await changesDuring(id, async () => {
      const res = await call('POST', `/api/conversation/${conversation.uuid}/written-message`, { message: 'A person writes.' });
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(written).toBe(1);
    await settle(t.ctx);
  });

  it("refuses a type whose phases do not include the conversation's phase (409), and allows one that does", async () => {
    const four = await buildPlaybook(t.ctx, { phases: 4 });
    const two = await buildPlaybook(t.ctx, { phases: 2 });
    const { conversation } = await buildProspectConversation(t.ctx, four.id, 3);
    const refused = await call('PATCH', `/api/conversation/${conversation.id}`, { conversationType: two.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'PHASE_NOT_IN_TYPE', error: expect.stringContaining('phase 3') });
    expect((await conversationRow(t.ctx, conversation.id)).conversationTypeId).toBe(four.id);

    const { conversation: early } = await buildProspectConversation(t.ctx, four.id, 1);
    expect((await call('PATCH', `/api/conversation/${early.id}`, { conversationType: two.id })).statusCode).toBe(200);
    expect((await conversationRow(t.ctx, early.id)).conversationTypeId).toBe(two.id);
  });

  it('Take over closes the pending follow-up entry of the unanswered list', async () => {
    const type = await buildPlaybook(t.ctx);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    await receiveProspectMessage(t.ctx, conversation.id, 'tell me more');
    await settle(t.ctx);
    expect(await unansweredOf(t.ctx, conversation.id)).toMatchObject({ status: 'ACTIVE' });
    expect((await call('POST', `/api/conversation/${conversation.id}/take-over`)).statusCode).toBe(200);
    expect(await unansweredOf(t.ctx, conversation.id)).toBeUndefined();
  });
});
