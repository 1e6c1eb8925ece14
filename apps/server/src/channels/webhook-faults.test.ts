import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import type { AppContext } from '../context.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { buildChannelAccount } from '../test/channel-factories.ts';
import { startMetaGraphFake } from '../test/fakes/meta-graph-fake.ts';
import { openTestDatabase } from '../test/test-database.ts';
import { startServerProcess } from '../test/server-process.ts';
import { TURN_JOB } from '../agent/turn.job.ts';
import { DELIVER_JOB } from './delivery-keys.ts';
import { INBOUND_JOB } from './inbox.ts';

/**
 * Faults (issue #8): real server processes (`src/main.ts`) on one PostgreSQL database, a burst of signed
 * Instagram events, and
 *  1. a kill -9 in the middle of the burst, then a restart and Meta's redelivery of what was not acknowledged;
 *  2. two processes sharing the burst.
 * Every event that got a 2xx must be stored exactly once and answered exactly once; an event that got no
 * 2xx is redelivered (as Meta does) and then processed too. Each event comes from its own prospect, so
 * "answered exactly once" is one AGENT message per conversation and one send per prospect at the fake Graph
 * API — except that a send in flight at the instant of the kill may be repeated (docs/channels.md: none of
 * these providers takes an idempotency key), so at most one duplicate send is allowed after a kill.
 */
/**
 * Events per burst. The default keeps this test around two minutes on a small shared machine; the issue's
 * full scenario is `FAULT_EVENTS=2000` (docs/channels.md, "Fault tests"). Time limits grow with the count.
 */
const EVENTS = Number(process.env.FAULT_EVENTS ?? 300);
const TEST_TIMEOUT_MS = 120_000 + EVENTS * 600;
const CONCURRENCY = 20;
const APP_SECRET = 'fault-secret-fault-secret-fault-secret';
const META_APP_SECRET = 'fault-meta-secret';
const PAGE_ID = 'IG-FAULTS';

function signedEvent(index: number): { body: string; signature: string } {
  const now = Date.now();
  const body = JSON.stringify({
    object: 'instagram',
    entry: [{ id: PAGE_ID, time: now, messaging: [{ sender: { id: `prospect-${index}` }, recipient: { id: PAGE_ID }, timestamp: now, message: { mid: `mid-${index}`, text: `Message ${index}` } }] }],
  });
  return { body, signature: `sha256=${createHmac('sha256', META_APP_SECRET).update(body).digest('hex')}` };
}

describe.skipIf(process.env.TEST_DB !== 'pg')('webhooks under kill -9 and with two processes (PostgreSQL)', () => {
  let graph: Awaited<ReturnType<typeof startMetaGraphFake>>;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    graph = await startMetaGraphFake({ tokens: ['fault-token'] });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await graph.close();
  });

  /** A fresh database with the playbook and the Instagram account, set up through a throwaway app. */
  async function prepareDatabase() {
    const database = await openTestDatabase();
    const config = loadConfig({ NODE_ENV: 'test', APP_SECRET, LOG_LEVEL: 'silent', DATA_DIR: `/tmp/sales-agent-test-${process.pid}` });
    const { app, ctx } = await buildApp({ config, database });
    const type = await buildPlaybook(ctx, { initialMessage: null });
    await buildChannelAccount(ctx, { type: 'INSTAGRAM', pageId: PAGE_ID, token: 'fault-token', conversationTypeId: type.id });
    await app.close();
    return { database, ctx };
  }

  const startServer = (databaseUrl: string) =>
    startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        APP_SECRET,
        META_APP_SECRET,
        META_GRAPH_URL: graph.url,
        // No LLM here: the demo agent's replies are what the test counts (docs/agent.md, no demo text to real people).
        DEMO_AGENT_ON_LIVE_CHANNELS: 'true',
      },
      children,
    );

  /** Posts events with CONCURRENCY in flight; answers the indexes that got a 2xx. */
  async function burst(indexes: number[], urls: () => string[], onAcked?: (count: number) => void): Promise<Set<number>> {
    const acked = new Set<number>();
    let next = 0;
    const worker = async () => {
      while (next < indexes.length) {
        const index = indexes[next++];
        const targets = urls();
        if (targets.length === 0) return;
        const { body, signature } = signedEvent(index);
        const ok = await fetch(`${targets[index % targets.length]}/api/meta-api/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body,
        })
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) {
          acked.add(index);
          onAcked?.(acked.size);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return acked;
  }

  /**
   * Waits (polling the shared database: the work happens in other processes) until every event is answered:
   * every reply SENT and no job of the message pipeline left (recurring jobs such as housekeeping or token
   * refresh are always pending, so only inbound, turn and delivery jobs count).
   */
  async function waitUntilAnswered(ctx: AppContext, expected: number) {
    for (let i = 0; i < TEST_TIMEOUT_MS / 250; i += 1) {
      const result = await ctx.db.execute(sql`
        select (select count(*) from outbox where status = 'SENT')::int as sent,
               (select count(*) from jobs where status in ('pending', 'running') and name in (${INBOUND_JOB}, ${TURN_JOB}, ${DELIVER_JOB}))::int as open`);
      const row = (result as unknown as { rows: { sent: number; open: number }[] }).rows[0];
      if (row.sent >= expected && row.open === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('the events were not all answered in time');
  }

  async function expectEachEventOnceAndAnsweredOnce(ctx: AppContext, maxDuplicateSends: number) {
    const result = await ctx.db.execute(sql`
      select
        (select count(*) from messages where role = 'PROSPECT')::int as prospect_messages,
        (select count(distinct external_id) from messages where role = 'PROSPECT')::int as distinct_mids,
        (select count(*) from conversations)::int as conversations,
        (select count(*) from (select conversation_id from messages where role = 'AGENT' group by conversation_id having count(*) = 1) one)::int as answered_once,
        (select count(*) from outbox where status <> 'SENT')::int as unsent`);
    expect((result as unknown as { rows: unknown[] }).rows[0]).toEqual({
      prospect_messages: EVENTS,
      distinct_mids: EVENTS,
      conversations: EVENTS,
      answered_once: EVENTS,
      unsent: 0,
    });
    const sendsPerRecipient = new Map<string, number>();
    for (const request of graph.requests) {
      if (request.method !== 'POST' || !request.path.endsWith('/me/messages')) continue;
      const recipient = (request.body as { recipient: { id: string } }).recipient.id;
      sendsPerRecipient.set(recipient, (sendsPerRecipient.get(recipient) ?? 0) + 1);
    }
    expect(sendsPerRecipient.size).toBe(EVENTS);
    const duplicates = [...sendsPerRecipient.values()].reduce((sum, n) => sum + n - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(maxDuplicateSends);
  }

  it(`stores and answers each of ${EVENTS} events exactly once across a kill -9 mid-burst and a restart`, async () => {
    graph.requests.length = 0;
    const { database, ctx } = await prepareDatabase();
    try {
      let server: { child: ChildProcess; url: string } | null = await startServer(database.url!);
      const first = server.child;
      const exited = once(first, 'exit');
      const all = Array.from({ length: EVENTS }, (_, i) => i);
      const acked = await burst(all, () => (server ? [server.url] : []), (count) => {
        if (count === Math.floor(EVENTS / 3) && server) {
          server.child.kill('SIGKILL');
          server = null;
        }
      });
      expect(acked.size).toBeGreaterThan(0);
      expect(acked.size).toBeLessThan(EVENTS);
      await exited;
      // The dead process's claimed jobs come back when their lease runs out (jobs/runner.ts: the definition's
      // leaseMs, 60 s by default); the test lets that time "pass" instead of waiting for it, as makeJobsDue
      // does for backoffs.
      await ctx.db.execute(sql`update jobs set locked_until = now() - interval '1 second' where status = 'running'`);
      const restarted = await startServer(database.url!);
      // Meta redelivers what got no 2xx, and sometimes what did: both must be harmless.
      const redeliver = [...all.filter((i) => !acked.has(i)), ...[...acked].slice(0, 50)];
      const second = await burst(redeliver, () => [restarted.url]);
      expect(second.size).toBe(redeliver.length);
      await waitUntilAnswered(ctx, EVENTS);
      await expectEachEventOnceAndAnsweredOnce(ctx, 1);
      restarted.child.kill('SIGTERM');
    } finally {
      await database.close();
    }
  }, TEST_TIMEOUT_MS);

  it(`shares a burst of ${EVENTS} events between two processes with the same result`, async () => {
    graph.requests.length = 0;
    const { database, ctx } = await prepareDatabase();
    try {
      const servers = [await startServer(database.url!), await startServer(database.url!)];
      const acked = await burst(Array.from({ length: EVENTS }, (_, i) => i), () => servers.map((s) => s.url));
      expect(acked.size).toBe(EVENTS);
      await waitUntilAnswered(ctx, EVENTS);
      await expectEachEventOnceAndAnsweredOnce(ctx, 0);
      for (const server of servers) server.child.kill('SIGTERM');
    } finally {
      await database.close();
    }
  }, TEST_TIMEOUT_MS);
});
