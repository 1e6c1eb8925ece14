import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations, messagingAccounts, prospects, users, webhookInbox } from '../db/schema/index.ts';
import { useTestApp } from '../test/use-test-app.ts';
import {
  buildChannelAccount,
  conversationOfProspect,
  metaMessagePayload,
  postMeta,
  PUBLIC_URL,
  CHANNEL_ENV,
} from '../test/channel-factories.ts';
import { buildAdmin } from '../test/factories.ts';
import { MAINTENANCE_INTERVAL_MS, MAINTENANCE_JOB, runMaintenance, scheduleMaintenance } from './maintenance.ts';

/**
 * The raw webhook payloads (message texts, phone numbers) of webhook_inbox: kept WEBHOOK_RETENTION_DAYS after
 * processing, and erased at once with the conversation, prospect, account or user they belong to.
 */
const t = useTestApp({ env: { ...CHANNEL_ENV, WEBHOOK_RETENTION_DAYS: '3' } });

let sequence = 0;
/** A signed Instagram message from `sender`, processed; answers the inbox row and the prospect's conversation. */
async function receive(pageId: string, accountId: number, sender: string) {
  sequence += 1;
  const mid = `m_retention_${sequence}`;
  expect((await postMeta(t, metaMessagePayload('instagram', pageId, sender, mid, `hello ${sequence}`))).statusCode).toBe(200);
  await t.ctx.jobs.drain();
  const [row] = await t.ctx.db.select().from(webhookInbox).where(sql`${webhookInbox.payload}::text like ${`%${mid}%`}`);
  const found = await conversationOfProspect(t.ctx, accountId, sender);
  return { row, conversation: found!.conversation };
}

const inboxRow = async (id: number) => (await t.ctx.db.select().from(webhookInbox).where(eq(webhookInbox.id, id)))[0];

describe('webhook_inbox erasure', () => {
  it('links a processed row to its account, prospect and conversation, and erases it with any of them', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'INSTAGRAM', pageId: 'ig-retention-1' });
    const first = await receive(account.pageId, account.id, 'ig-user-1');
    expect(first.row).toMatchObject({ messagingAccountId: account.id, conversationId: first.conversation.id, prospectId: first.conversation.prospectId });
    expect(first.row.processedAt).not.toBeNull();
    const second = await receive(account.pageId, account.id, 'ig-user-2');
    const third = await receive(account.pageId, account.id, 'ig-user-3');

    await t.ctx.db.delete(conversations).where(eq(conversations.id, first.conversation.id));
    expect(await inboxRow(first.row.id)).toBeUndefined();
    expect(await inboxRow(second.row.id)).toBeDefined();

    await t.ctx.db.delete(prospects).where(eq(prospects.id, second.conversation.prospectId!));
    expect(await inboxRow(second.row.id)).toBeUndefined();
    expect(await inboxRow(third.row.id)).toBeDefined();

    await t.ctx.db.delete(messagingAccounts).where(eq(messagingAccounts.id, account.id));
    expect(await inboxRow(third.row.id)).toBeUndefined();
  });

  it("erases what an ADMIN posted through the webhook simulator with that ADMIN", async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550009000', config: { accountSid: `AC${'2'.repeat(32)}` } });
    const simulating = await buildAdmin(t.ctx);
    await buildAdmin(t.ctx);
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/webhook-simulation/twilio',
      as: simulating.cookie,
      headers: { origin: PUBLIC_URL },
      payload: { MessageSid: 'SMretention1', From: '+15551239999', To: account.pageId, Body: 'Hi' },
    });
    expect(res.statusCode).toBe(200);
    const [row] = await t.ctx.db.select().from(webhookInbox).where(eq(webhookInbox.externalId, 'SMretention1'));
    expect(row.userId).toBe(simulating.id);
    await t.ctx.db.delete(users).where(eq(users.id, simulating.id));
    expect(await inboxRow(row.id)).toBeUndefined();
  });
});

describe('retention', () => {
  it('deletes processed rows after WEBHOOK_RETENTION_DAYS and never-processed ones after 30 days, and keeps the rest', async () => {
    const insert = (externalId: string, receivedDaysAgo: number, processedDaysAgo: number | null) =>
      t.ctx.db
        .insert(webhookInbox)
        .values({
          source: 'meta',
          externalId,
          payload: {},
          receivedAt: new Date(Date.now() - receivedDaysAgo * 86_400_000),
          processedAt: processedDaysAgo === null ? null : new Date(Date.now() - processedDaysAgo * 86_400_000),
        })
        .returning({ id: webhookInbox.id });
    const [oldProcessed] = await insert('r-old-processed', 4, 4);
    const [recentProcessed] = await insert('r-recent-processed', 2, 2);
    const [waiting] = await insert('r-waiting', 10, null);
    const [abandoned] = await insert('r-abandoned', 31, null);

    const { inboxDeleted } = await runMaintenance(t.ctx);
    expect(inboxDeleted).toBeGreaterThanOrEqual(2);
    expect(await inboxRow(oldProcessed.id)).toBeUndefined();
    expect(await inboxRow(abandoned.id)).toBeUndefined();
    expect(await inboxRow(recentProcessed.id)).toBeDefined();
    expect(await inboxRow(waiting.id)).toBeDefined();
  });

  it('runs as a scheduled job: one waiting run whatever the number of starts, and each run queues the next', async () => {
    await scheduleMaintenance(t.ctx);
    await scheduleMaintenance(t.ctx);
    const pending = async () =>
      (
        (await t.ctx.db.execute(sql`
          select id, extract(epoch from (run_at - now())) * 1000 as due_in from jobs where name = ${MAINTENANCE_JOB} and status = 'pending'`)) as unknown as {
          rows: { id: number; due_in: number }[];
        }
      ).rows;
    const before = await pending();
    expect(before).toHaveLength(1);
    await t.ctx.jobs.drain();
    const after = await pending();
    expect(after).toHaveLength(1);
    expect(Number(after[0].id)).not.toBe(Number(before[0].id));
    expect(Number(after[0].due_in)).toBeGreaterThan(MAINTENANCE_INTERVAL_MS - 60_000);
  });
});
