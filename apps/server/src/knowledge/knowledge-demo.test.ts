import { describe, expect, it } from 'vitest';
import { DEMO_AGENT_PREFIX } from '@sales-agent/shared/agent';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { agentMessagesOf, buildPlaybook } from '../test/agent-factories.ts';
import { attachCollections, buildCollection } from '../test/knowledge-factories.ts';
import { useTestApp, useUser } from '../test/use-test-app.ts';

// No OPENAI_API_KEY: the offline demo agent answers from the knowledge too.
const t = useTestApp();
const admin = useUser(t, 'ADMIN');

async function setUp() {
  const collection = await buildCollection(t, admin.cookie, [['How much does installation cost?', 'Installation costs 480 euros.']], 'Demo facts');
  const type = await buildPlaybook(t.ctx);
  await attachCollections(t, admin.cookie, type.id, [collection]);
  return { type, collection };
}

describe('knowledge with the offline demo agent', () => {
  it('answers from the passage, says it will find out otherwise and records that question; the test box shows the same', async () => {
    const { type, collection } = await setUp();
    const { id } = await startWebConversation(t.ctx, type.id);
    await receiveProspectMessage(t.ctx, id, 'What does installation cost?');
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe(`${DEMO_AGENT_PREFIX}From our "How much does installation cost?": Installation costs 480 euros.`);

    await receiveProspectMessage(t.ctx, id, 'Do you have a showroom in Oslo?');
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toMatch(/I'll find out/);
    const groups = (await t.request({ method: 'GET', url: '/api/admin/knowledge/questions', as: admin.cookie })).json().groups;
    expect(groups).toEqual([expect.objectContaining({ question: 'Do you have a showroom in Oslo?', count: 1 })]);

    const ask = await t.request({
      method: 'POST',
      url: `/api/admin/knowledge/${collection}/ask`,
      as: admin.cookie,
      payload: { query: 'installation price?', conversationTypeId: type.id },
    });
    expect(ask.json()).toMatchObject({ reply: expect.stringContaining('480 euros'), demo: true, unknown: false, needsHuman: false });
  });
});
