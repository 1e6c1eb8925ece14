import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PgEventBus } from '../../lib/events.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { openEventStream } from '../../test/event-stream.ts';
import { buildConversation, buildConversationType, buildMessagingAccount, buildProspect } from '../../test/conversation-factories.ts';
import { type TestUser } from '../../test/factories.ts';
import { ConversationAccounts, inboxViewer } from './inbox-access.ts';

/**
 * Issue 18: the inbox stream checks a viewer's access from a cached grant set (refreshed when grants change),
 * not with statements per event.
 */
let base: string;
let accountA: Awaited<ReturnType<typeof buildMessagingAccount>>;
let accountB: Awaited<ReturnType<typeof buildMessagingAccount>>;
let convA: Awaited<ReturnType<typeof buildConversation>>;
let convA2: Awaited<ReturnType<typeof buildConversation>>;
let convB: Awaited<ReturnType<typeof buildConversation>>;
let web: Awaited<ReturnType<typeof buildConversation>>;
/** The statements the app sent to the database since the last reset (both drivers: the client drizzle calls). */
let statements: string[] = [];

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);
beforeAll(async () => {
  const type = await buildConversationType(t.ctx, { phases: 2 });
  accountA = await buildMessagingAccount(t.ctx, { pageName: 'Alpha page' });
  accountB = await buildMessagingAccount(t.ctx, { pageName: 'Beta page' });
  const prospectA = await buildProspect(t.ctx, accountA.id);
  const prospectB = await buildProspect(t.ctx, accountB.id);
  convA = await buildConversation(t.ctx, { conversationTypeId: type.id, prospectId: prospectA.id });
  convA2 = await buildConversation(t.ctx, { conversationTypeId: type.id, prospectId: prospectA.id });
  convB = await buildConversation(t.ctx, { conversationTypeId: type.id, prospectId: prospectB.id });
  web = await buildConversation(t.ctx, { conversationTypeId: type.id });

  const client = (t.ctx.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text ?? ''));
    return query.apply(this, args);
  };

  base = await t.listen();
});

const grantReads = () => statements.filter((s) => s.includes('"user_messaging_accounts"')).length;
const conversationReads = () => statements.filter((s) => s.includes('from "conversations"')).length;

/** Grants through the admin API (the path that emits grants.changed); answers the permission id. */
async function grant(user: TestUser, accountId: number): Promise<number> {
  const res = await t.request({
    method: 'POST',
    url: '/api/admin/user-messaging-accounts/create',
    as: admin.cookie,
    payload: { userEmail: user.email, messagingAccountId: accountId },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}
async function revoke(permissionId: number): Promise<void> {
  const res = await t.request({ method: 'DELETE', url: `/api/admin/user-messaging-accounts/${permissionId}`, as: admin.cookie });
  expect(res.statusCode).toBe(200);
}

/** The inbox stream as a browser reads it. */
const openInbox = (cookie: string) => openEventStream(`${base}/api/conversation/list/events`, cookie);

const changed = (c: { id: number; uuid: string }) => t.ctx.events.emit('conversation.changed', { conversationId: c.id, uuid: c.uuid });
const occurrences = (text: string, uuid: string) => text.split(uuid).length - 1;

describe('inbox stream access from a cached grant set (issue 18)', () => {
  let grantA: number;
  let grantB: number;
  beforeEach(async () => {
    statements = [];
  });

  it('a grant given starts the events reaching that user; a grant revoked stops them', async () => {
    const actor = { id: normal.id, email: normal.email, role: 'NORMAL' as const };
    const viewer = inboxViewer(t.ctx, actor, new ConversationAccounts(t.ctx));
    try {
      expect(await viewer.maySee(convA.id)).toBe(false);
      grantA = await grant(normal, accountA.id);
      expect(await viewer.maySee(convA.id)).toBe(true);
      expect(await viewer.maySee(convB.id)).toBe(false);
      // A web chat is never a NORMAL user's (the list's rule).
      expect(await viewer.maySee(web.id)).toBe(false);
      await revoke(grantA);
      expect(await viewer.maySee(convA.id)).toBe(false);
    } finally {
      viewer.close();
    }

    // The same through a real stream: granted B passes, then revoked, B's events stop while A's (granted again) go on.
    grantA = await grant(normal, accountA.id);
    grantB = await grant(normal, accountB.id);
    const stream = await openInbox(normal.cookie);
    await stream.read((s) => s.includes('event: ready'));
    changed(convB);
    changed(convA);
    await stream.read((s) => s.includes(convA.uuid));
    await stream.read((s) => s.includes(convB.uuid));
    await revoke(grantB);
    const before = stream.text().length;
    changed(convB);
    changed(convA2);
    const after = (await stream.read((s) => s.slice(before).includes(convA2.uuid))).slice(before);
    expect(after).not.toContain(convB.uuid);
    stream.close();
  });

  it('a burst of events costs one grant read per stream and one conversation look-up, not statements per event', async () => {
    const streams = [await openInbox(normal.cookie), await openInbox(normal.cookie)];
    for (const s of streams) await s.read((text) => text.includes('event: ready'));
    statements = [];

    const burst = [convA, convA2, convB, web];
    for (let i = 0; i < 50; i++) changed(burst[i % burst.length]);
    for (const s of streams) {
      await s.read((text) => occurrences(text, convA.uuid) >= 13 && occurrences(text, convA2.uuid) >= 13);
    }
    // 2 streams × 50 events: the old check ran two statements per event and stream (200).
    expect(grantReads()).toBe(streams.length);
    expect(conversationReads()).toBe(1);
    for (const s of streams) {
      expect(s.text()).not.toContain(convB.uuid);
      expect(s.text()).not.toContain(web.uuid);
    }

    // The next burst is answered from the caches: no statement at all.
    statements = [];
    const seen = streams.map((s) => occurrences(s.text(), convA.uuid));
    for (let i = 0; i < 20; i++) changed(convA);
    for (const [i, s] of streams.entries()) await s.read((text) => occurrences(text, convA.uuid) >= seen[i] + 20);
    expect(grantReads()).toBe(0);
    expect(conversationReads()).toBe(0);
    for (const s of streams) s.close();
  });

  it('an ADMIN stream passes every event without reading grants', async () => {
    const stream = await openInbox(admin.cookie);
    await stream.read((text) => text.includes('event: ready'));
    statements = [];
    for (const c of [convA, convB, web]) changed(c);
    await stream.read((text) => [convA, convB, web].every((c) => text.includes(c.uuid)));
    expect(grantReads()).toBe(0);
    expect(conversationReads()).toBe(0);
    stream.close();
  });
});

describe.skipIf(process.env.TEST_DB !== 'pg')('another instance on the same PostgreSQL', () => {
  it('learns of a grant revoked here (grants.changed through LISTEN/NOTIFY) and stops passing the events on', async () => {
    const permission = await grant(normal, accountB.id);
    // A second instance's event bus, as a process behind the same load balancer has.
    const database = t.ctx.database as typeof t.ctx.database & { url: string };
    const other = new PgEventBus(database, t.ctx.log);
    await other.ready;
    const actor = { id: normal.id, email: normal.email, role: 'NORMAL' as const };
    const viewer = inboxViewer({ ...t.ctx, events: other }, actor, new ConversationAccounts(t.ctx));
    try {
      expect(await viewer.maySee(convB.id)).toBe(true);
      const arrived = new Promise<void>((resolve) => {
        const off = other.on('grants.changed', (event) => {
          if (event.userId === normal.id) {
            off();
            resolve();
          }
        });
      });
      await revoke(permission);
      await arrived;
      expect(await viewer.maySee(convB.id)).toBe(false);
    } finally {
      viewer.close();
      await other.close();
    }
  });
});
