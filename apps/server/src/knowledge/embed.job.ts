import { and, eq, isNull, ne, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/executor.ts';
import { knowledgeChunks } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { EMBED_BATCH, embeddingsModel, embedTexts, vectorToBytes } from './embeddings.ts';

export const KNOWLEDGE_EMBED_JOB = 'knowledge.embed';
/** The whole-database catch-up queued at start: one pending or running at a time. */
const CATCH_UP_KEY = 'knowledge.embed';

/** A source's passages (sourceId) or every passage (no sourceId) still lacking the current model's vector. */
const payload = z.object({ sourceId: z.number().int().optional() });

/**
 * Embeds, batch by batch, the passages without a vector of the current EMBEDDINGS_MODEL (never embedded, or
 * by another model: a model change re-embeds). Each batch is one embeddings request (the SDK retries 429/5xx
 * with backoff; a batch that still fails fails the job, which the runner retries later) and one update per
 * passage guarded by its text, so a passage replaced meanwhile is not given a stale vector. Returns the count.
 */
export async function embedPending(ctx: AppContext, sourceId?: number): Promise<number> {
  const model = embeddingsModel(ctx.config);
  if (!model) return 0;
  const needsVector = and(
    or(isNull(knowledgeChunks.embeddingModel), ne(knowledgeChunks.embeddingModel, model)),
    sourceId === undefined ? undefined : eq(knowledgeChunks.sourceId, sourceId),
  );
  let done = 0;
  let afterId = 0;
  for (;;) {
    const batch = await ctx.db
      .select({ id: knowledgeChunks.id, title: knowledgeChunks.title, text: knowledgeChunks.text })
      .from(knowledgeChunks)
      .where(and(needsVector, sql`${knowledgeChunks.id} > ${afterId}`))
      .orderBy(knowledgeChunks.id)
      .limit(EMBED_BATCH);
    if (batch.length === 0) return done;
    const vectors = await embedTexts(ctx.config, model, batch.map(passageInput));
    await ctx.db.transaction(async (tx) => {
      for (const [i, row] of batch.entries()) {
        await tx
          .update(knowledgeChunks)
          .set({ embedding: vectorToBytes(vectors[i]), embeddingModel: model })
          .where(and(eq(knowledgeChunks.id, row.id), eq(knowledgeChunks.text, row.text)));
      }
    });
    done += batch.length;
    afterId = batch[batch.length - 1].id;
  }
}

/** What is embedded for a passage: its title (page or question) and text, as lexical search indexes it. */
function passageInput(row: { title: string | null; text: string }): string {
  return row.title ? `${row.title}\n${row.text}` : row.text;
}

/** Queues embedding of one source's new passages, in the transaction that wrote them (no-op without a model). */
export async function queueSourceEmbedding(ctx: AppContext, sourceId: number, executor: Executor): Promise<void> {
  if (!embeddingsModel(ctx.config)) return;
  await ctx.jobs.enqueue(KNOWLEDGE_EMBED_JOB, { sourceId }, { executor });
}

/**
 * At start: queues the catch-up over every passage lacking the current model's vector (after a model change,
 * or passages ingested while embeddings were off). One per database whatever the number of instances.
 */
export async function scheduleEmbeddingCatchUp(ctx: AppContext): Promise<void> {
  if (!embeddingsModel(ctx.config)) return;
  await ctx.jobs.enqueue(KNOWLEDGE_EMBED_JOB, {}, { singletonKey: CATCH_UP_KEY });
}

export const knowledgeEmbedJob: JobDefinition<typeof payload> = {
  name: KNOWLEDGE_EMBED_JOB,
  payload,
  handler: async (ctx, { sourceId }) => {
    await embedPending(ctx, sourceId);
  },
};
