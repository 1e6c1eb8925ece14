import { beforeEach, describe, expect, it } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { FIND_OUT_REPLY, HAND_OVER_REPLY } from '../agent/knowledge-reply.ts';
import { agentMessagesOf, buildPlaybook, conversationRow } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { attachCollections, buildCollection } from '../test/knowledge-factories.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { groundingProblem, unsupportedNumbers } from './grounding.ts';

const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '1' }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
beforeEach(async () => {
  fake.reset();
  // One database per file: each test starts with no open questions.
  await t.ctx.db.execute('update knowledge_questions set resolved_at = now() where resolved_at is null');
});

async function typeWithKnowledge(config: Record<string, unknown> = {}) {
  const collection = await buildCollection(t, admin.cookie, [['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.']]);
  const type = await buildPlaybook(t.ctx, { config });
  expect((await attachCollections(t, admin.cookie, type.id, [collection])).statusCode).toBe(200);
  return { type, collection };
}

const questions = async () => (await t.request({ method: 'GET', url: '/api/admin/knowledge/questions', as: admin.cookie })).json().groups;

describe('grounding check', () => {
  it('finds numbers the support does not state, however they are written', () => {
    const support = ['Installation costs 480 euros; the Pro plan is 1,200 per year, 4.5% off, open 9:30.'];
    expect(unsupportedNumbers('It is €480.00, or 1.200 a year with 4,5 % off from 9:30.', support)).toEqual([]);
    expect(unsupportedNumbers('Installation is 650 euros and takes 3 days.', support)).toEqual(['650', '3']);
    expect(groundingProblem('Only 99 euros!', support)).toMatch(/"99".*do not support/);
    expect(groundingProblem('Yes, we install it.', support)).toBeNull();
  });
});

describe('the checking step and unanswered questions', () => {
  it('refuses a draft with an unsupported price, retries with the reason, then says it will find out and records the question', async () => {
    const { type } = await typeWithKnowledge();
    const { id, uuid } = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'The wall charger costs 650 euros.', needsHuman: false, reason: '', unknownQuestion: '' } });
    await receiveProspectMessage(t.ctx, id, 'How much is the wall charger?');
    await t.ctx.jobs.drain();

    const drafts = fake.requests.filter((r) => r.schemaName === 'draft_reply');
    expect(drafts).toHaveLength(2);
    expect(String(drafts[1].messages[0].content)).toMatch(/rejected by the reviewer.*"650"/s);
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe(FIND_OUT_REPLY);
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);

    const groups = await questions();
    expect(groups).toEqual([
      expect.objectContaining({ question: 'How much is the wall charger?', count: 1, conversations: [{ uuid, typeTitle: 'Widgets playbook' }], conversationTypeIds: [type.id] }),
    ]);
  });

  it('a supported price passes; the checking prompt gets the passages', async () => {
    const { type } = await typeWithKnowledge();
    await t.ctx.db.execute(`update conversation_types set checking_prompt = 'Be polite.' where id = ${type.id}`);
    const { id } = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Installation is 480 euros.', needsHuman: false, reason: '', unknownQuestion: '' } });
    await receiveProspectMessage(t.ctx, id, 'What does installation cost?');
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Installation is 480 euros.');
    const guard = fake.requests.find((r) => r.schemaName === 'guard_check')!;
    expect(String(guard.messages[0].content)).toMatch(/price, number, date or promise not supported.*480 euros/s);
    expect(await questions()).toEqual([]);
  });

  it('hands over per the type config (knowledge.whenUnknown) and records a question the model says the facts do not answer', async () => {
    const { type } = await typeWithKnowledge({ knowledge: { whenUnknown: 'hand-over' } });
    const { id } = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', {
      json: { reply: "I'll find out about that.", needsHuman: false, reason: '', unknownQuestion: 'Do you ship to Norway?' },
    });
    await receiveProspectMessage(t.ctx, id, 'Hi, do you ship to Norway by any chance?');
    await t.ctx.jobs.drain();
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe("I'll find out about that.");
    expect((await questions())[0]).toMatchObject({ question: 'Do you ship to Norway?', count: 1 });

    // A price the knowledge does not support, under hand-over: the holding message, a person takes over.
    const second = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Shipping to Norway is 30 euros.', needsHuman: false, reason: '', unknownQuestion: '' } });
    await receiveProspectMessage(t.ctx, second.id, 'do you ship to norway?');
    await t.ctx.jobs.drain();
    expect((await conversationRow(t.ctx, second.id)).phase).toBe(-2);
    expect((await agentMessagesOf(t.ctx, second.id)).at(-1)).toBe(HAND_OVER_REPLY);
    // Both phrasings group as one question, most asked first.
    expect(await questions()).toEqual([expect.objectContaining({ count: 2 })]);
  });

  it('"add as FAQ" answers the group with a new FAQ entry the agent then retrieves; dismiss closes a group', async () => {
    const { type, collection } = await typeWithKnowledge();
    for (const text of ['Do you ship to Norway?', 'What is the warranty?']) {
      const { id } = await startWebConversation(t.ctx, type.id);
      fake.on('draft_reply', { json: { reply: 'Let me find out.', needsHuman: false, reason: '', unknownQuestion: text } });
      await receiveProspectMessage(t.ctx, id, text);
      await t.ctx.jobs.drain();
    }
    const groups = await questions();
    expect(groups).toHaveLength(2);
    const norway = groups.find((g: { question: string }) => g.question.includes('Norway'));
    const add = await t.request({
      method: 'POST',
      url: '/api/admin/knowledge/questions/faq',
      as: admin.cookie,
      payload: { key: norway.key, collectionId: collection, question: norway.question, answer: 'Yes, we ship to Norway within 5 days.' },
    });
    expect(add.statusCode).toBe(201);
    expect(add.json()).toMatchObject({ resolved: 1 });
    await t.ctx.jobs.drain();
    expect((await questions()).map((g: { question: string }) => g.question)).toEqual(['What is the warranty?']);
    const found = await t.request({ method: 'POST', url: `/api/admin/knowledge/${collection}/search`, as: admin.cookie, payload: { query: 'ship to norway' } });
    expect(found.json().results[0]).toMatchObject({ sourceId: add.json().id, text: expect.stringContaining('5 days') });

    const warranty = (await questions())[0];
    const dismiss = (key: string) => t.request({ method: 'POST', url: '/api/admin/knowledge/questions/dismiss', as: admin.cookie, payload: { key } });
    expect((await dismiss(warranty.key)).statusCode).toBe(200);
    expect(await questions()).toEqual([]);
    expect((await dismiss(warranty.key)).statusCode).toBe(404);
  });

  it('answers 400, 401, 403 and 404 on the question routes', async () => {
    const faq = (payload: object, as?: string) => t.request({ method: 'POST', url: '/api/admin/knowledge/questions/faq', as, payload });
    expect((await faq({ key: 'x', collectionId: 1, question: '', answer: 'a' }, admin.cookie)).statusCode).toBe(400);
    expect((await faq({ key: 'x', collectionId: 999999, question: 'q', answer: 'a' }, admin.cookie)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge/questions' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge/questions', as: normal.cookie })).statusCode).toBe(403);
    expect((await faq({ key: 'x', collectionId: 1, question: 'q', answer: 'a' }, normal.cookie)).statusCode).toBe(403);
  });

  it('the test box asks the chosen type: its answer, checked against the passages', async () => {
    const { type, collection } = await typeWithKnowledge();
    const ask = (payload: object, id = collection) => t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/ask`, as: admin.cookie, payload });
    fake.on('draft_reply', { json: { reply: 'Installation is 480 euros, done within two weeks.', needsHuman: false, reason: '', unknownQuestion: '' } });
    const res = await ask({ query: 'what does installation cost?', conversationTypeId: type.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ reply: 'Installation is 480 euros, done within two weeks.', needsHuman: false, unknown: false, demo: false });
    expect(res.json().passages[0].text).toContain('480 euros');
    expect(String(fake.requests.at(-1)!.messages[0].content)).toContain('Installation costs 480 euros');

    fake.on('draft_reply', { json: { reply: 'It is 999 euros.', needsHuman: false, reason: '', unknownQuestion: '' } });
    expect((await ask({ query: 'what does installation cost?', conversationTypeId: type.id })).json()).toMatchObject({ reply: FIND_OUT_REPLY, unknown: true });
    // The test box records nothing.
    expect(await questions()).toEqual([]);

    expect((await ask({ query: '', conversationTypeId: type.id })).statusCode).toBe(400);
    expect((await ask({ query: 'x', conversationTypeId: 999999 })).statusCode).toBe(404);
    expect((await ask({ query: 'x', conversationTypeId: type.id }, 999999)).statusCode).toBe(404);
    fake.on('draft_reply', { status: 500, json: { error: { message: 'boom' } } });
    expect((await ask({ query: 'x', conversationTypeId: type.id })).statusCode).toBe(502);
  });
});
