import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import type { AppContext } from '../context.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook, buildProspectConversation, messagesOf, outboxOf } from '../test/agent-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { openTestDatabase } from '../test/test-database.ts';
import { receiveProspectMessage } from './agent.service.ts';
import { runConversationTurn } from './turn.ts';

/**
 * Two server processes on one PostgreSQL database: two apps, each with its own connection pool and its own
 * polling JobRunner, exactly as two `npm start` instances behind a load balancer.
 */
const fake = new OpenAiFake();
const apps: { app: FastifyInstance; ctx: AppContext; database: Database }[] = [];
let shared: Awaited<ReturnType<typeof openTestDatabase>>;

describe.skipIf(process.env.TEST_DB !== 'pg')('two server processes sharing PostgreSQL', () => {
  beforeAll(async () => {
    await fake.start();
    fake.latencyMs = 15;
    shared = await openTestDatabase();
    for (let i = 0; i < 2; i += 1) {
      const database = i === 0 ? shared : openDatabase({ url: shared.url!, poolSize: 5 });
      const config = loadConfig({
        NODE_ENV: 'test',
        APP_SECRET: 'test-secret-test-secret-test-secret',
        LOG_LEVEL: 'silent',
        DATA_DIR: `/tmp/sales-agent-test-${process.pid}`,
        ...fake.env(),
      });
      const { app, ctx } = await buildApp({ config, database, jobPollMs: 10 });
      await app.ready();
      ctx.jobs.start();
      apps.push({ app, ctx, database });
    }
  });
  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await apps[1]?.database.close();
    await shared?.close();
    await fake.close();
  });

  const [a, b] = [() => apps[0].ctx, () => apps[1].ctx];

  /**
   * Waits until no job is due or running for 200 ms in a row (a finishing turn frees its key a moment
   * before it enqueues the next turn; follow-ups due in an hour do not count).
   */
  async function settled(ctx: AppContext) {
    let quiet = 0;
    for (let i = 0; i < 800 && quiet < 8; i += 1) {
      const open = await ctx.db.$count(jobs, sql`(status = 'pending' and run_at <= now()) or status = 'running'`);
      quiet = open === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (quiet < 8) throw new Error('jobs did not settle');
  }

  it('sends each reply exactly once while both runners poll the same jobs table', async () => {
    const type = await buildPlaybook(a(), { config: { followUp: { max: 0 } } });
    const ids: number[] = [];
    for (let i = 0; i < 20; i += 1) ids.push((await buildProspectConversation(a(), type.id)).conversation.id);
    await Promise.all(ids.map((id, i) => receiveProspectMessage(i % 2 ? b() : a(), id, `hello ${i}`)));
    await settled(a());
    for (const id of ids) {
      expect(await agentMessagesOf(a(), id)).toEqual(['Fake reply']);
      expect(await outboxOf(a(), id)).toHaveLength(1);
    }
    expect(fake.count('draft_reply')).toBe(20);
  });

  it('lets only one of two processes run a turn of the same conversation at a time', async () => {
    // The queued turn is due only in a minute, so neither runner races the two direct calls below (with a
    // zero window a runner could answer first and both calls would find nothing to answer).
    const type = await buildPlaybook(a(), { config: { replyDebounceSeconds: 60 } });
    const { conversation } = await buildProspectConversation(a(), type.id);
    await receiveProspectMessage(a(), conversation.id, 'hi');
    // Both processes try the turn at once, bypassing the job queue: the advisory lock serialises them and
    // the second finds the message answered.
    const outcomes = await Promise.all([runConversationTurn(a(), conversation.id), runConversationTurn(b(), conversation.id)]);
    expect(outcomes.sort()).toEqual(['nothing-to-answer', 'replied']);
    await settled(a());
    expect(await agentMessagesOf(a(), conversation.id)).toEqual(['Fake reply']);
  });

  it('never answers one message twice when a burst arrives through both processes', async () => {
    const type = await buildPlaybook(a(), { config: { followUp: { max: 0 } } });
    const { conversation } = await buildProspectConversation(a(), type.id);
    for (let i = 0; i < 6; i += 1) {
      await receiveProspectMessage(i % 2 ? b() : a(), conversation.id, `part ${i}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await settled(a());
    const roles = (await messagesOf(a(), conversation.id)).map((m) => m.role);
    expect(roles.at(-1)).toBe('AGENT');
    // No two AI replies without a prospect message between them.
    expect(roles.join(',')).not.toContain('AGENT,AGENT');
  });
});
