import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { receiveProspectMessage, setConversationPhase, startWebConversation } from '../../agent/agent.service.ts';
import { reportConversationOutcome } from '../../conversations/conversation-outcome.ts';
import { conversations, jobs } from '../../db/schema/index.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { startGhlFake } from '../../test/fakes/ghl-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';

const llm = useFake(new OpenAiFake());
const stageOnOutcome = { ended: 'st-appointment', needsHuman: 'st-human' };

const ghl = useFake(() => startGhlFake());
const t = useTestApp({ env: () => ({ ...llm.env({ LLM_MAX_RETRIES: '0' }), ...ghl.env() }) });
beforeEach(() => {
  llm.reset();
  ghl.requests.length = 0;
  ghl.notes.clear();
});

/** A web conversation of a CRM-linked type, started for a GoHighLevel contact (as the Call button does). */
async function contactConversation(contactId: string, config: Record<string, unknown> = { crm: 'GHL', stageOnOutcome }) {
  const type = await buildPlaybook(t.ctx, { phases: 2, config });
  const { id } = await startWebConversation(t.ctx, type.id);
  await t.ctx.db.update(conversations).set({ crmContactId: contactId }).where(eq(conversations.id, id));
  return id;
}

async function say(id: number, text: string) {
  await receiveProspectMessage(t.ctx, id, text);
  await t.ctx.jobs.drain();
}

const opportunity = (id: string) => ghl.opportunities.find((o) => o.id === id)!;

describe('CRM write-back', () => {
  it('after the agent ends a contact\'s conversation, GoHighLevel gets the stage move and a note with the outcome', async () => {
    const id = await contactConversation('ct-03');
    llm.on('transition_decision', { json: { advance: true, reason: 'yes' } });
    llm.on('conversation_rating', { json: { rating: 8, reason: 'booked' } });
    await say(id, 'I want panels');
    await say(id, 'Book me for Tuesday');
    const [row] = await t.ctx.db.select().from(conversations).where(eq(conversations.id, id));
    expect(row.phase).toBe(2);

    expect(opportunity('opp-03').pipelineStageId).toBe('st-appointment');
    const put = ghl.requests.find((r) => r.method === 'PUT');
    expect(put).toMatchObject({ path: '/opportunities/opp-03', body: { pipelineStageId: 'st-appointment' } });
    expect(put?.headers.authorization).toBe(`Bearer ${ghl.apiKey}`);
    expect(ghl.requests.find((r) => r.path === '/opportunities/search')?.query).toMatchObject({ contact_id: 'ct-03', pipeline_id: 'pl-solar' });

    const [note] = ghl.notes.get('ct-03') ?? [];
    expect(note).toContain('Sales Agent: Conversation completed');
    expect(note).toContain('Phase reached: End conversation');
    expect(note).toContain('Rating: 8/10');
    expect(note).toContain('the contact last said "Book me for Tuesday"');
    expect(note).toContain(`Conversation: http://localhost:3000/conversation/${row.uuid}`);
    expect(ghl.notes.get('ct-03')).toHaveLength(1);
  });

  it('a conversation that needs a human moves to that outcome\'s stage', async () => {
    const id = await contactConversation('ct-04');
    llm.on('draft_reply', { json: { reply: '', needsHuman: true, reason: 'asks for a manager' } });
    await say(id, 'Let me talk to a manager');
    expect(opportunity('opp-04').pipelineStageId).toBe('st-human');
    expect(ghl.notes.get('ct-04')?.[0]).toContain('Sales Agent: Needs a human');
  });

  it('an admin setting the end phase writes back too, once', async () => {
    const id = await contactConversation('ct-06');
    await setConversationPhase(t.ctx, id, 2);
    await t.ctx.jobs.drain();
    await setConversationPhase(t.ctx, id, 2); // already ended: nothing new to tell the CRM
    await t.ctx.jobs.drain();
    expect(opportunity('opp-06').pipelineStageId).toBe('st-appointment');
    expect(ghl.notes.get('ct-06')).toHaveLength(1);
    expect(ghl.notes.get('ct-06')?.[0]).toContain('Rating: not rated');
  });

  it('retries until GoHighLevel takes it, without moving or noting twice', async () => {
    const id = await contactConversation('ct-05');
    ghl.failNext(401, 1, { path: '/contacts/ct-05/notes' });
    await reportConversationOutcome(t.ctx, { id, crmContactId: 'ct-05' }, 'ended');
    await t.ctx.jobs.drain();
    const key = `crm-write-back:${id}:ended`;
    const [failed] = await t.ctx.db.select().from(jobs).where(eq(jobs.singletonKey, key));
    expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(failed.lastError).toContain('GoHighLevel refused the API key');
    expect(opportunity('opp-05').pipelineStageId).toBe('st-appointment');
    expect(ghl.notes.get('ct-05')).toBeUndefined();

    // The backoff has passed (made due now instead of waiting): the retry adds the note, and moves nothing again.
    await t.ctx.db.update(jobs).set({ runAt: new Date(0) }).where(eq(jobs.id, failed.id));
    await t.ctx.jobs.drain();
    const [done] = await t.ctx.db.select().from(jobs).where(eq(jobs.id, failed.id));
    expect(done.status).toBe('done');
    expect(ghl.notes.get('ct-05')).toHaveLength(1);
    expect(ghl.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('does nothing for a conversation without a contact, and skips a type no longer linked to the CRM', async () => {
    const plain = await contactConversation('ct-08', { stageOnOutcome });
    await reportConversationOutcome(t.ctx, { id: plain, crmContactId: 'ct-08' }, 'ended');
    await reportConversationOutcome(t.ctx, { id: plain, crmContactId: null }, 'ended');
    await t.ctx.jobs.drain();
    expect(ghl.requests).toEqual([]);
  });
});
