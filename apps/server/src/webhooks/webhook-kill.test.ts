import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/env.ts';
import { WEBHOOK_DELIVER_JOB } from '../lib/webhook-outbox.ts';
import { rowsOf } from '../lib/limits.ts';
import { createApiKey } from '../modules/integrations/api-keys.service.ts';
import { createWebhook } from '../modules/integrations/webhooks.service.ts';
import { buildPlaybook } from '../test/agent-factories.ts';
import { buildAdmin } from '../test/factories.ts';
import { WebhookReceiver } from '../test/fakes/webhook-receiver.ts';
import { openTestDatabase } from '../test/test-database.ts';
import { startServerProcess } from '../test/server-process.ts';
import { verifyWebhook } from './signature.ts';

/**
 * Issue 27 under faults: real server processes (`src/main.ts`) on one PostgreSQL, conversations driven through
 * the API with a key while the server is killed with SIGKILL mid-burst and restarted. Every stored message has
 * exactly one message.created event (written in its statement: none lost, none doubled), every event reaches the
 * receiver signed, duplicates (a send in flight at the kill) share their event id, and each conversation's events
 * arrive in order.
 */
const CONVERSATIONS = 8;
const MESSAGES = 6;
const APP_SECRET = 'kill-secret-kill-secret-kill-secret';

describe.skipIf(process.env.TEST_DB !== 'pg')('webhooks across a kill -9 (PostgreSQL)', () => {
  const receiver = new WebhookReceiver();
  const children = new Set<ChildProcess>();
  beforeAll(() => receiver.start());
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await receiver.close();
  });

  const startServer = (databaseUrl: string) =>
    startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        APP_SECRET,
        ALLOW_PRIVATE_URLS: 'true',
        QUIET_HOURS_ENFORCED: 'false',
        CHAT_RATE_LIMIT: '100000',
        CHAT_CONVERSATION_LIMIT: '100000',
        API_KEY_RATE_LIMIT: '100000',
      },
      children,
    );

  it('loses no event, duplicates only with the same id, keeps each conversation in order', async () => {
    const database = await openTestDatabase();
    try {
      const config = loadConfig({ NODE_ENV: 'test', APP_SECRET, LOG_LEVEL: 'silent', DATA_DIR: `/tmp/sales-agent-test-${process.pid}`, ALLOW_PRIVATE_URLS: 'true' });
      const { app, ctx } = await buildApp({ config, database });
      const type = await buildPlaybook(ctx, { initialMessage: 'Hello from the demo', phases: 50 });
      const admin = await buildAdmin(ctx);
      const { key } = await createApiKey(ctx, admin, { name: 'faults', scopes: ['conversations:write'] });
      const { secret } = await createWebhook(ctx, admin, { url: receiver.url, events: ['conversation.started', 'message.created'] });
      await app.close();

      let server: { child: ChildProcess; url: string } | null = await startServer(database.url!);
      const first = server.child;
      const exited = once(first, 'exit');
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      let acked = 0;
      const killAt = Math.floor((CONVERSATIONS * (MESSAGES + 1)) / 3);
      let restarted: Promise<{ child: ChildProcess; url: string }> | null = null;
      const current = async () => {
        if (server) return server;
        return (restarted ??= (async () => {
          await exited;
          await ctx.db.execute(sql`update jobs set locked_until = now() - interval '1 second' where status = 'running'`);
          server = await startServer(database.url!);
          return server;
        })());
      };
      const ack = () => {
        acked += 1;
        if (acked === killAt && server) {
          server.child.kill('SIGKILL');
          server = null;
        }
      };
      /** Sends until a 2xx (a request cut by the kill is sent again to the restarted server, like a client retrying). */
      async function send(path: string, body: unknown): Promise<Response> {
        for (;;) {
          const target = await current();
          const res = await fetch(`${target.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).catch(() => null);
          if (res && res.ok) {
            ack();
            return res;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, c) => {
          const { uuid } = (await (await send('/api/conversation/new', { conversationTypeId: type.id })).json()) as { uuid: string };
          for (let m = 0; m < MESSAGES; m++) await send(`/api/conversation/${uuid}/written-message`, { message: `conversation ${c} message ${m}` });
        }),
      );
      expect(first.exitCode === null && first.signalCode === null).toBe(false);

      // Wait until every delivery is done (jobs of the dead process were released above).
      for (let i = 0; i < 600; i++) {
        const [row] = rowsOf<{ open: number }>(
          await ctx.db.execute(sql`
            select (select count(*) from webhook_deliveries where status = 'PENDING')::int
              + (select count(*) from jobs where status in ('pending', 'running') and name in ('agent.turn', 'channels.deliver'))::int as open`),
        );
        if (row.open === 0) break;
        await ctx.db.execute(sql`update webhook_deliveries set next_attempt_at = now() where status = 'PENDING' and next_attempt_at > now()`);
        await ctx.db.execute(sql`update jobs set run_at = now() where name = ${WEBHOOK_DELIVER_JOB} and status = 'pending' and run_at > now()`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      // 1. Every stored message has exactly one message.created event, and nothing else has one.
      const messages = rowsOf<{ id: number; events: number }>(
        await ctx.db.execute(sql`
          select m.id, (select count(*) from webhook_events e where e.type = 'message.created' and (e.data->'message'->>'id')::bigint = m.id)::int as events
          from messages m`),
      );
      expect(messages.length).toBeGreaterThanOrEqual(CONVERSATIONS * (MESSAGES + 1));
      expect(messages.filter((m) => m.events !== 1)).toEqual([]);
      const events = rowsOf<{ event_id: string; lane: string; id: number | string }>(await ctx.db.execute(sql`select event_id, lane, id from webhook_events order by id`));
      expect(events.filter((e) => e.lane.startsWith('c:'))).toHaveLength(events.length);

      // 2. Every event arrived, signed; duplicates share their id.
      const received = receiver.received;
      for (const r of received) expect(verifyWebhook(secret, r.body, String(r.headers['x-webhook-signature']))).toBe(true);
      const receivedIds = new Set(received.map((r) => r.json.id));
      expect(events.filter((e) => !receivedIds.has(e.event_id))).toEqual([]);
      expect(receivedIds.size).toBe(events.length);
      // Only a send in flight at the kill is repeated: at most one per conversation (one in flight per lane).
      expect(received.length - receivedIds.size).toBeLessThanOrEqual(CONVERSATIONS);

      // 3. Per conversation, first arrivals are in the order the events were written.
      const order = new Map(events.map((e) => [e.event_id, Number(e.id)]));
      const seen = new Set<string>();
      const byLane = new Map<string, number[]>();
      for (const r of received) {
        if (seen.has(r.json.id)) continue;
        seen.add(r.json.id);
        const lane = events.find((e) => e.event_id === r.json.id)!.lane;
        byLane.set(lane, [...(byLane.get(lane) ?? []), order.get(r.json.id)!]);
      }
      for (const [lane, ids] of byLane) expect(ids, lane).toEqual([...ids].sort((a, b) => a - b));
      (server as { child: ChildProcess } | null)?.child.kill('SIGTERM');
    } finally {
      await database.close();
    }
  }, 240_000);
});
