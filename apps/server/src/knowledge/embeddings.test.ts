import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { receiveProspectMessage, startWebConversation } from '../agent/agent.service.ts';
import { knowledgeChunks } from '../db/schema/index.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { attachCollections, buildCollection } from '../test/knowledge-factories.ts';
import { type TestApp } from '../test/build-test-app.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { scheduleEmbeddingCatchUp } from './embed.job.ts';

const fake = useFake(new OpenAiFake());
beforeEach(() => fake.reset());

const FACTS: [string, string][] = [
  ['How much does installation cost?', 'Installation costs 480 euros, done within two weeks.'],
  ['Which colours do the widgets come in?', 'Widgets come in red, blue and green.'],
];
/** Shares no word (after stop words and stemming) with the installation FAQ, but its meaning: the fake's "price" axis. */
const RELATED_QUERY = 'any fees?';

const search = (t: TestApp, cookie: string, id: number, query: string) =>
  t.request({ method: 'POST', url: `/api/admin/knowledge/${id}/search`, as: cookie, payload: { query } });

describe('knowledge retrieval without an embeddings model', () => {
  const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '1' }) });
  const admin = useUser(t, 'ADMIN');

  it('is lexical only: a related question with no shared word finds nothing, and no embeddings call is made', async () => {
    const id = await buildCollection(t, admin.cookie, FACTS);
    expect((await search(t, admin.cookie, id, RELATED_QUERY)).json().results).toEqual([]);
    expect((await search(t, admin.cookie, id, 'installation price')).json().results[0].text).toContain('480 euros');
    expect(fake.embeddingRequests).toEqual([]);
    const chunks = await t.ctx.db.select({ model: knowledgeChunks.embeddingModel }).from(knowledgeChunks).where(eq(knowledgeChunks.collectionId, id));
    expect(chunks.every((c) => c.model === null)).toBe(true);
  });
});

describe('knowledge retrieval with an embeddings model (hybrid)', () => {
  const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '1', EMBEDDINGS_MODEL: 'text-embedding-3-small' }) });
  const admin = useUser(t, 'ADMIN');
  afterEach(() => vi.restoreAllMocks());

  const modelsOf = async (id: number) =>
    (await t.ctx.db.select({ model: knowledgeChunks.embeddingModel, embedding: knowledgeChunks.embedding }).from(knowledgeChunks).where(eq(knowledgeChunks.collectionId, id))).map(
      (c) => `${c.model}:${c.embedding?.byteLength}`,
    );

  it('embeds passages in the ingestion job (batched) and finds a semantically related question lexical search misses', async () => {
    const id = await buildCollection(t, admin.cookie, FACTS);
    expect(await modelsOf(id)).toEqual(['text-embedding-3-small:256', 'text-embedding-3-small:256']);
    expect(fake.embeddingRequests.every((r) => r.model === 'text-embedding-3-small' && r.encodingFormat === 'base64')).toBe(true);

    const found = await search(t, admin.cookie, id, RELATED_QUERY);
    expect(found.statusCode).toBe(200);
    const results = found.json().results as { text: string; score: number }[];
    expect(results[0].text).toContain('480 euros');
    expect(Object.keys(results[0]).sort()).toEqual(['score', 'sourceId', 'text', 'title']);
    // The query was embedded at retrieval time.
    expect(fake.embeddingRequests.at(-1)!.input).toEqual([RELATED_QUERY]);
  });

  it("a turn's draft prompt carries the semantically related passage and not the unrelated one", async () => {
    const id = await buildCollection(t, admin.cookie, FACTS);
    const type = await buildPlaybook(t.ctx);
    expect((await attachCollections(t, admin.cookie, type.id, [id])).statusCode).toBe(200);
    const conversation = await startWebConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Installation is 480 euros.', needsHuman: false, reason: '' } });
    await receiveProspectMessage(t.ctx, conversation.id, 'Are there any fees?');
    await t.ctx.jobs.drain();
    const system = String(fake.requests.find((r) => r.schemaName === 'draft_reply')!.messages[0].content);
    expect(system).toContain('Installation costs 480 euros');
    expect(system).not.toContain('red, blue and green');
  });

  it('retries an embeddings request answered 429', async () => {
    fake.once('embeddings', { status: 429 });
    const id = await buildCollection(t, admin.cookie, FACTS.slice(0, 1));
    expect(await modelsOf(id)).toEqual(['text-embedding-3-small:256']);
    expect(fake.embeddingRequests).toHaveLength(2);
  });

  it('degrades to lexical results with a logged warning when the embeddings call fails', async () => {
    const id = await buildCollection(t, admin.cookie, FACTS);
    fake.on('embeddings', { status: 500 });
    const warn = vi.spyOn(t.ctx.log, 'warn');
    const found = await search(t, admin.cookie, id, 'installation price');
    expect(found.statusCode).toBe(200);
    expect(found.json().results[0].text).toContain('480 euros');
    expect((await search(t, admin.cookie, id, RELATED_QUERY)).json().results).toEqual([]);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ model: 'text-embedding-3-small' }), expect.stringContaining('lexical results only'));
  });

  it('re-embeds in the background when the model changes (passages of another model are queued again)', async () => {
    const id = await buildCollection(t, admin.cookie, FACTS);
    const config = t.ctx.config as { EMBEDDINGS_MODEL?: string };
    config.EMBEDDINGS_MODEL = 'text-embedding-3-large';
    try {
      await scheduleEmbeddingCatchUp(t.ctx);
      await t.ctx.jobs.drain();
      expect(await modelsOf(id)).toEqual(['text-embedding-3-large:256', 'text-embedding-3-large:256']);
      expect(fake.embeddingRequests.some((r) => r.model === 'text-embedding-3-large')).toBe(true);
      expect((await search(t, admin.cookie, id, RELATED_QUERY)).json().results[0].text).toContain('480 euros');
    } finally {
      config.EMBEDDINGS_MODEL = 'text-embedding-3-small';
    }
  });
});
