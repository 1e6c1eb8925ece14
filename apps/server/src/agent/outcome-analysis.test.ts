import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { conversationAnalyses, conversations, webhookEndpoints, webhookEvents } from '../db/schema/index.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { startGhlFake } from '../test/fakes/ghl-fake.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from './agent.service.ts';

const llm = useFake(new OpenAiFake());
const ghl = useFake(() => startGhlFake());
const t = useTestApp({ env: () => ({ ...llm.env({ LLM_MAX_RETRIES: '0' }), ...ghl.env() }) });
const admin = useUser(t, 'ADMIN');
beforeEach(() => {
  llm.reset();
  ghl.notes.clear();
});

const outcomes = ['booked', 'qualified', 'lost'];

/** A two-phase conversation the model moves to its end at the second prospect message. */
async function endedConversation(config: Record<string, unknown> = { outcomes, successRubric: 'Booked is 100.' }, contactId?: string) {
  const type = await buildPlaybook(t.ctx, { phases: 2, config });
  const { id, uuid } = await startWebConversation(t.ctx, type.id);
  if (contactId) await t.ctx.db.update(conversations).set({ crmContactId: contactId }).where(eq(conversations.id, id));
  llm.on('transition_decision', { json: { advance: true, reason: 'yes' } });
  for (const text of ['I want panels', 'Sounds good, thanks']) {
    await receiveProspectMessage(t.ctx, id, text);
    await t.ctx.jobs.drain();
  }
  const [row] = await t.ctx.db.select({ phase: conversations.phase }).from(conversations).where(eq(conversations.id, id));
  expect(row.phase).toBe(2);
  return { id, uuid };
}

describe('outcome analysis', () => {
  it('asks the model with a strict JSON schema of the type\'s outcomes when the conversation ends, and answers it on the detail and the list', async () => {
    llm.on('conversation_analysis', { json: { summary: 'Wants panels; agreed to a follow-up.', outcome: 'qualified', score: 140 } });
    const { uuid } = await endedConversation();

    const asked = llm.requests.filter((r) => r.schemaName === 'conversation_analysis');
    expect(asked).toHaveLength(1);
    expect(asked[0].responseFormat).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'conversation_analysis', strict: true, schema: { required: ['summary', 'outcome', 'score'], additionalProperties: false } },
    });
    expect((asked[0].responseFormat!.json_schema!.schema!.properties as { outcome: { enum: string[] } }).outcome.enum).toEqual(outcomes);
    expect(asked[0].messages[0].content).toContain('Booked is 100.');
    expect(asked[0].messages[1].content).toContain('Prospect: Sounds good, thanks');

    const detail = await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie });
    expect(detail.statusCode).toBe(200);
    // The score is held to 0–100 whatever the model says.
    expect(detail.json().analysis).toEqual({ summary: 'Wants panels; agreed to a follow-up.', outcome: 'qualified', score: 100 });
    // The visitor of the web chat never reads the team's verdict on them (issue 24).
    const asVisitor = await t.request({ method: 'GET', url: `/api/conversation/${uuid}` });
    expect(asVisitor.statusCode).toBe(200);
    expect(asVisitor.json().analysis).toBeNull();
    expect(asVisitor.body).not.toContain('Wants panels; agreed');

    const list = (q: string) => t.request({ method: 'GET', url: `/api/conversation/list?limit=100${q}`, as: admin.cookie });
    const qualified = await list('&outcome=qualified');
    expect(qualified.statusCode).toBe(200);
    expect(qualified.json().conversations.map((c: { uuid: string }) => c.uuid)).toContain(uuid);
    expect(qualified.json().conversations.find((c: { uuid: string }) => c.uuid === uuid).outcome).toBe('qualified');
    expect((await list('&outcome=booked')).json().conversations.map((c: { uuid: string }) => c.uuid)).not.toContain(uuid);
    expect((await list(`&outcome=${'x'.repeat(61)}`)).statusCode).toBe(400);
  });

  it('an outcome outside the type\'s list is refused: no analysis is stored, and the CRM note keeps the plain summary', async () => {
    llm.on('conversation_analysis', { json: { summary: 'Made up', outcome: 'maybe', score: 50 } });
    const { id } = await endedConversation({ outcomes, crm: 'GHL' }, 'ct-03');
    expect(await t.ctx.db.select().from(conversationAnalyses).where(eq(conversationAnalyses.conversationId, id))).toEqual([]);
    const [note] = ghl.notes.get('ct-03') ?? [];
    expect(note).toContain('the contact last said "Sounds good, thanks"');
    expect(note).not.toContain('Outcome:');
  });

  it('the CRM note carries the analysis instead of the free-text summary', async () => {
    llm.on('conversation_analysis', { json: { summary: 'Booked a site visit for Tuesday.', outcome: 'booked', score: 95 } });
    await endedConversation({ outcomes, crm: 'GHL' }, 'ct-04');
    const [note] = ghl.notes.get('ct-04') ?? [];
    expect(note).toContain('Outcome: booked (score 95/100)');
    expect(note).toContain('Summary: Booked a site visit for Tuesday.');
    expect(note).not.toContain('the contact last said');
  });

  it('emits conversation.analyzed with the analysis after conversation.ended', async () => {
    await t.ctx.db.insert(webhookEndpoints).values({
      url: 'http://127.0.0.1:9/in',
      secretSealed: t.ctx.secrets.seal('whsec_test'),
      events: ['conversation.ended', 'conversation.analyzed'],
    });
    llm.on('conversation_analysis', { json: { summary: 'Short.', outcome: 'lost', score: 5 } });
    const { id } = await endedConversation();
    const events = (await t.ctx.db.select().from(webhookEvents).where(eq(webhookEvents.lane, `c:${id}`))).sort((a, b) => Number(a.id) - Number(b.id));
    const types = events.map((e) => e.type);
    expect(types.indexOf('conversation.analyzed')).toBeGreaterThan(types.indexOf('conversation.ended'));
    expect(events.find((e) => e.type === 'conversation.analyzed')?.data).toMatchObject({
      conversation: { id },
      analysis: { summary: 'Short.', outcome: 'lost', score: 5 },
      ended: 'ended',
    });
  });
});
