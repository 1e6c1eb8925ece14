import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../../agent/agent.service.ts';
import { agentToolCalls, conversationLeadFields, conversations } from '../../db/schema/index.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

const llm = useFake(new OpenAiFake());
const t = useTestApp({ env: () => llm.env({ LLM_MAX_RETRIES: '0' }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

const LEAD_FIELDS = [
  { key: 'email', label: 'Email', type: 'email', required: true },
  { key: 'company', label: 'Company', type: 'text' },
  { key: 'budget', label: 'Budget (USD)', type: 'number' },
  { key: 'timeline', label: 'Timeline', type: 'enum', options: ['this month', 'this quarter', 'later'] },
];

beforeEach(() => llm.reset());

async function leadConversation() {
  const type = await buildPlaybook(t.ctx, { phases: 3, config: { leadFields: LEAD_FIELDS } });
  return startWebConversation(t.ctx, type.id);
}

const detailOf = async (uuid: string) => (await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie })).json();

it('offers update_lead with one typed property per declared field, stores what validates, says what does not', async () => {
  llm.once('tools', { toolCalls: [{ name: 'update_lead', arguments: { email: 'Ada@Example.com', budget: '12,000', timeline: 'soon' } }] });
  const { id, uuid } = await leadConversation();
  await receiveProspectMessage(t.ctx, id, "I'm Ada from Acme, ada@example.com, budget 12k, soon");
  await t.ctx.jobs.drain();

  const step = llm.requests.find((r) => r.schemaName === 'tools')!;
  expect(step.tools).toEqual(['update_lead']);
  const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(call!.ok).toBe(true);
  expect(JSON.parse(call!.result)).toEqual({
    saved: { email: 'ada@example.com', budget: 12000 },
    rejected: { timeline: 'must be one of this month, this quarter, later' },
    stillMissing: [],
  });
  const detail = await detailOf(uuid);
  expect(detail.leadFields).toEqual({ email: 'ada@example.com', budget: 12000 });
  expect(detail.leadFieldDefinitions.map((f: { key: string }) => f.key)).toEqual(['email', 'company', 'budget', 'timeline']);
});

describe('PUT /api/conversation/{id}/lead-fields', () => {
  it("saves a person's correction, which the agent then keeps; null clears a field", async () => {
    llm.on('tools', { toolCalls: [] });
    const { id, uuid } = await leadConversation();
    const put = (fields: Record<string, unknown>, cookie = admin.cookie) =>
      t.request({ method: 'PUT', url: `/api/conversation/${id}/lead-fields`, payload: { fields }, as: cookie });
    const saved = await put({ company: 'Acme Ltd', timeline: 'This Quarter' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ message: 'Lead fields saved', leadFields: { company: 'Acme Ltd', timeline: 'this quarter' } });

    llm.reset();
    llm.once('tools', { toolCalls: [{ name: 'update_lead', arguments: { company: 'ACME' } }] });
    await receiveProspectMessage(t.ctx, id, 'We are ACME');
    await t.ctx.jobs.drain();
    const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
    expect(JSON.parse(call!.result).rejected).toEqual({ company: 'was corrected by a person; keep their value' });
    expect((await detailOf(uuid)).leadFields).toEqual({ company: 'Acme Ltd', timeline: 'this quarter' });

    expect((await put({ timeline: null })).json().leadFields).toEqual({ company: 'Acme Ltd' });
  });

  it('answers 400 for an invalid value or an unknown field (nothing written), 401, 403 and 404', async () => {
    const { id, uuid } = await leadConversation();
    const put = (payload: unknown, cookie: string | null = admin.cookie, target = id) =>
      t.request({ method: 'PUT', url: `/api/conversation/${target}/lead-fields`, payload: payload as object, as: cookie ?? undefined });
    const bad = await put({ fields: { company: 'Acme', email: 'not-an-email' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: 'email must be an email address' });
    expect((await put({ fields: { shoeSize: 9 } })).json().error).toBe('shoeSize is not a lead field of this conversation type');
    expect((await put({ nope: 1 })).statusCode).toBe(400);
    expect((await detailOf(uuid)).leadFields).toEqual({});
    expect((await put({ fields: {} }, null)).statusCode).toBe(401);
    expect((await put({ fields: { company: 'X' } }, normal.cookie)).statusCode).toBe(403);
    expect((await put({ fields: {} }, admin.cookie, 999_999)).statusCode).toBe(404);
  });
});

it('the demo agent records an email address the prospect writes', async () => {
  const demo = await import('../../agent/tools/demo-acts.ts');
  const step = demo.demoToolStep({
    model: 'x',
    messages: [],
    tools: [{ name: 'update_lead', description: '', parameters: { type: 'object', properties: { email: { type: 'string' } } } }],
    facts: { lastProspectMessage: 'reach me at ada@example.com please', results: [] },
  });
  expect(step.toolCalls).toEqual([{ id: 'demo-lead', name: 'update_lead', arguments: '{"email":"ada@example.com"}' }]);
});

describe('a phase can require lead fields (requiredBeforePhase; required before the end)', () => {
  it('the agent stays and asks for the missing fields instead of moving on, and moves once they are filled', async () => {
    const type = await buildPlaybook(t.ctx, {
      phases: 2,
      config: { leadFields: [{ key: 'company', label: 'Company', type: 'text', requiredBeforePhase: 1 }, { key: 'email', label: 'Email', type: 'email', required: true }] },
    });
    const { id } = await startWebConversation(t.ctx, type.id);
    llm.on('transition_decision', { json: { advance: true, reason: 'ready' } });
    const phase = async () => (await t.ctx.db.select({ phase: conversations.phase }).from(conversations).where(eq(conversations.id, id)))[0]!.phase;

    await receiveProspectMessage(t.ctx, id, 'Hi, tell me more');
    await t.ctx.jobs.drain();
    expect(await phase()).toBe(0);
    expect(JSON.stringify(llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!.messages)).toContain('Before moving on, ask the prospect for: Company.');

    await t.ctx.db.insert(conversationLeadFields).values({ conversationId: id, key: 'company', value: 'Acme', source: 'agent' });
    await receiveProspectMessage(t.ctx, id, 'We are Acme');
    await t.ctx.jobs.drain();
    expect(await phase()).toBe(1);

    // The end (phase 2) needs the required email.
    await receiveProspectMessage(t.ctx, id, 'Sounds good');
    await t.ctx.jobs.drain();
    expect(await phase()).toBe(1);
    expect(JSON.stringify(llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!.messages)).toContain('ask the prospect for: Email.');
    await t.ctx.db.insert(conversationLeadFields).values({ conversationId: id, key: 'email', value: 'a@acme.test', source: 'agent' });
    await receiveProspectMessage(t.ctx, id, 'a@acme.test');
    await t.ctx.jobs.drain();
    expect(await phase()).toBe(2);
  });
});
