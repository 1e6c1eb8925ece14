import { beforeEach, describe, expect, it } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { agentMessagesOf, buildPlaybook } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { attachCollections, buildCollection } from '../test/knowledge-factories.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';

const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '1' }) });
const admin = useUser(t, 'ADMIN');
beforeEach(() => fake.reset());

const collectionWith = (faqs: [string, string][]) => buildCollection(t, admin.cookie, faqs);
const attach = (typeId: number, ids: number[]) => attachCollections(t, admin.cookie, typeId, ids);

describe('knowledge in a turn', () => {
  it('a type names its collections; the draft prompt carries the relevant passage with its source, not unrelated ones', async () => {
    const collection = await collectionWith([
      ['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.'],
      ['Which colours do the widgets come in?', 'Widgets come in red, blue and green.'],
    ]);
    const type = await buildPlaybook(t.ctx);
    expect((await attach(type.id, [collection])).statusCode).toBe(200);
    const detail = await t.request({ method: 'GET', url: `/api/conversation-type/${type.id}`, as: admin.cookie });
    expect(detail.json().knowledgeCollectionIds).toEqual([collection]);

    const { id, uuid } = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Installation is 480 euros.', needsHuman: false, reason: '' } });
    await receiveProspectMessage(t.ctx, id, 'what does the installation cost?');
    await t.ctx.jobs.drain();

    const draft = fake.requests.find((r) => r.schemaName === 'draft_reply')!;
    const system = String(draft.messages[0].content);
    expect(system).toContain('Installation costs 480 euros');
    expect(system).toContain('source: How much does installation cost?');
    expect(system).not.toContain('red, blue and green');
    expect(await agentMessagesOf(t.ctx, id)).toContain('Installation is 480 euros.');

    const used = await t.request({ method: 'GET', url: `/api/admin/knowledge/conversations/${uuid}/passages`, as: admin.cookie });
    expect(used.statusCode).toBe(200);
    const lists = Object.values(used.json().passages) as { text: string; title: string }[][];
    expect(lists).toHaveLength(1);
    expect(lists[0]).toEqual([expect.objectContaining({ title: 'How much does installation cost?', text: expect.stringContaining('480 euros') })]);
  });

  it('a conversation pinned to a published version answers from that version’s collections, not the draft’s', async () => {
    const published = await collectionWith([['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.']]);
    const drafted = await collectionWith([['How much does installation cost?', 'Installation costs 999 euros, done within a month.']]);
    const type = await buildPlaybook(t.ctx);
    expect((await attach(type.id, [published])).statusCode).toBe(200);
    const publish = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/versions/publish`, as: admin.cookie, payload: {} });
    expect(publish.json()).toEqual({ version: 1 });
    const { id } = await startWebConversation(t.ctx, type.id);
    // The draft now links another collection: the v1 conversation must not see it.
    expect((await attach(type.id, [drafted])).statusCode).toBe(200);

    fake.on('draft_reply', { json: { reply: 'Installation is 480 euros.', needsHuman: false, reason: '' } });
    await receiveProspectMessage(t.ctx, id, 'what does the installation cost?');
    await t.ctx.jobs.drain();
    const system = String(fake.requests.find((r) => r.schemaName === 'draft_reply')!.messages[0].content);
    expect(system).toContain('Installation costs 480 euros');
    expect(system).not.toContain('999 euros');
  });

  it('a type without collections drafts with no knowledge block; unknown collection ids are refused', async () => {
    const type = await buildPlaybook(t.ctx);
    const refused = await attach(type.id, [999999]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/no knowledge collection 999999/);
    const { id } = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Let me find out.', needsHuman: false, reason: '' } });
    await receiveProspectMessage(t.ctx, id, 'what does the installation cost?');
    await t.ctx.jobs.drain();
    const draft = fake.requests.find((r) => r.schemaName === 'draft_reply')!;
    expect(String(draft.messages[0].content)).not.toContain('knowledge base');
  });

  it('answers 404 for an unknown conversation and 400 for a malformed uuid', async () => {
    const url = '/api/admin/knowledge/conversations/00000000-0000-4000-8000-000000000000/passages';
    expect((await t.request({ method: 'GET', url, as: admin.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/admin/knowledge/conversations/nope/passages', as: admin.cookie })).statusCode).toBe(400);
  });
});
