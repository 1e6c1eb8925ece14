import { asc, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { followUps, handoffs } from '../../db/schema/index.ts';
import { receiveProspectMessage, sendHumanMessage } from '../../agent/agent.service.ts';
import { buildPlaybook, buildProspectConversation, conversationRow, makeFollowUpDue } from '../../test/agent-factories.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

/** The write paths behind the hand-off and follow-up figures: the agent's turn, Take over, a person's reply, the follow-up job. */
const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env() });
const admin = useUser(t, 'ADMIN');
beforeEach(() => fake.reset());

const handoffsOf = (id: number) =>
  t.ctx.db.select({ reason: handoffs.reason, answered: handoffs.answeredAt }).from(handoffs).where(eq(handoffs.conversationId, id)).orderBy(asc(handoffs.id));

async function conversation() {
  const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 3 } } });
  return (await buildProspectConversation(t.ctx, type.id)).conversation.id;
}

describe('hand-offs as the product records them', () => {
  it('the agent asking for a person opens a HUMAN_REQUESTED hand-off; the person answering closes it', async () => {
    const id = await conversation();
    fake.on('draft_reply', { json: { reply: 'Let me get a colleague.', needsHuman: true, reason: 'asks for the manager' } });
    await receiveProspectMessage(t.ctx, id, 'I want your manager');
    await t.ctx.jobs.drain();
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect(await handoffsOf(id)).toEqual([{ reason: 'HUMAN_REQUESTED', answered: null }]);
    // Take over on the handed-over conversation is the same hand-off.
    expect((await t.request({ method: 'POST', url: `/api/conversation/${id}/take-over`, as: admin.cookie })).statusCode).toBe(200);
    expect(await handoffsOf(id)).toHaveLength(1);
    await sendHumanMessage(t.ctx, id, 'Hi, the manager here.', admin);
    const [row] = await handoffsOf(id);
    expect(row.answered).toBeInstanceOf(Date);
    // A second message of the person is no new hand-off.
    await sendHumanMessage(t.ctx, id, 'Anything else?', admin);
    expect(await handoffsOf(id)).toHaveLength(1);
  });

  it('Take over opens TAKEN_OVER once; a person writing on an unpaused conversation is a take-over answered at once', async () => {
    const pressed = await conversation();
    for (let i = 0; i < 2; i++) {
      expect((await t.request({ method: 'POST', url: `/api/conversation/${pressed}/take-over`, as: admin.cookie })).statusCode).toBe(200);
    }
    expect(await handoffsOf(pressed)).toEqual([{ reason: 'TAKEN_OVER', answered: null }]);
    const written = await conversation();
    await sendHumanMessage(t.ctx, written, 'Hello from the team', admin);
    const rows = await handoffsOf(written);
    expect(rows).toEqual([{ reason: 'TAKEN_OVER', answered: expect.any(Date) }]);
  });
});

describe('follow-ups as the product records them', () => {
  it('the follow-up job records each follow-up; the prospect writing marks the latest one as bringing them back', async () => {
    const id = await conversation();
    await receiveProspectMessage(t.ctx, id, 'tell me more');
    await t.ctx.jobs.drain();
    for (let i = 0; i < 2; i++) {
      await makeFollowUpDue(t.ctx, id);
      await t.ctx.jobs.drain();
    }
    const sent = () => t.ctx.db.select({ replied: followUps.repliedAt }).from(followUps).where(eq(followUps.conversationId, id)).orderBy(asc(followUps.sentAt));
    expect(await sent()).toEqual([{ replied: null }, { replied: null }]);
    await receiveProspectMessage(t.ctx, id, 'ok, sorry, I am back');
    expect(await sent()).toEqual([{ replied: null }, { replied: expect.any(Date) }]);
  });
});
