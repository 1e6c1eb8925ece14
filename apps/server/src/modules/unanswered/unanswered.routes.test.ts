import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { unansweredConversations } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import {
  at,
  buildConversation,
  buildMessagingAccount,
  buildProspect,
  buildUnanswered,
} from '../../test/conversation-factories.ts';

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t);

const LIST = '/api/admin/unanswered-conversations/listt';

describe('unanswered conversations', () => {
  it('lists rows with conversation, prospect and account, earliest reply first', async () => {
    const account = await buildMessagingAccount(t.ctx, { pageName: 'Shop page' });
    const prospect = await buildProspect(t.ctx, account.id);
    const conv = await buildConversation(t.ctx, { prospectId: prospect.id, phase: 1 });
    const webChat = await buildConversation(t.ctx, { phase: 0 });
    const errors = JSON.stringify([{ message: 'Token expired', type: 'OAuthException', code: 190, status: 400 }]);
    const late = await buildUnanswered(t.ctx, conv.id, { errors, followUpCount: 2, earliestReplyDateTime: at(90) });
    const early = await buildUnanswered(t.ctx, webChat.id, { status: 'INACTIVE', earliestReplyDateTime: at(5) });

    const res = await t.request({ method: 'GET', url: LIST, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: early.id,
        status: 'INACTIVE',
        followUpCount: 0,
        earliestReplyDateTime: at(5).toISOString(),
        errors: '[]',
        conversation: { uuid: webChat.uuid, phase: 0, Prospect: null },
      },
      {
        id: late.id,
        status: 'ACTIVE',
        followUpCount: 2,
        earliestReplyDateTime: at(90).toISOString(),
        errors,
        conversation: { uuid: conv.uuid, phase: 1, Prospect: { uuid: prospect.uuid, messagingAccount: { pageName: 'Shop page' } } },
      },
    ]);
  });

  it('toggles the status both ways and deletes a row', async () => {
    const row = await buildUnanswered(t.ctx, (await buildConversation(t.ctx)).id);
    const url = `/api/admin/unanswered-conversations/${row.id}`;
    const off = await t.request({ method: 'PATCH', url, as: admin.cookie, payload: { status: 'INACTIVE' } });
    expect(off.json()).toEqual({ message: 'Unanswered conversation status updated successfully' });
    expect((await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.id, row.id)))[0].status).toBe('INACTIVE');
    let notified = 0;
    const stop = t.ctx.events.on('unanswered.changed', () => notified++);
    await t.request({ method: 'PATCH', url, as: admin.cookie, payload: { status: 'ACTIVE' } });
    stop();
    expect(notified).toBe(1);
    expect((await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.id, row.id)))[0].status).toBe('ACTIVE');

    const del = await t.request({ method: 'DELETE', url, as: admin.cookie });
    expect(del.json()).toEqual({ message: 'Unanswered conversation deleted successfully' });
    expect(await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.id, row.id))).toHaveLength(0);
    expect((await t.request({ method: 'DELETE', url, as: admin.cookie })).statusCode).toBe(404);
    expect((await t.request({ method: 'PATCH', url, as: admin.cookie, payload: { status: 'ACTIVE' } })).statusCode).toBe(404);
  });

  it('answers 400 for a bad status, id or malformed JSON', async () => {
    const row = await buildUnanswered(t.ctx, (await buildConversation(t.ctx)).id);
    const url = `/api/admin/unanswered-conversations/${row.id}`;
    for (const payload of [{ status: 'PAUSED' }, {}, { status: 1 }]) {
      expect((await t.request({ method: 'PATCH', url, as: admin.cookie, payload })).statusCode).toBe(400);
    }
    const bad = await t.request({ method: 'PATCH', url, as: admin.cookie, json: '{' });
    expect(bad.statusCode).toBe(400);
    expect((await t.request({ method: 'DELETE', url: '/api/admin/unanswered-conversations/abc', as: admin.cookie })).statusCode).toBe(400);
  });

  it('is 401 anonymous and 403 NORMAL on every call', async () => {
    const row = await buildUnanswered(t.ctx, (await buildConversation(t.ctx)).id);
    const calls = [
      { method: 'GET' as const, url: LIST },
      { method: 'DELETE' as const, url: `/api/admin/unanswered-conversations/${row.id}` },
      { method: 'PATCH' as const, url: `/api/admin/unanswered-conversations/${row.id}`, payload: { status: 'INACTIVE' } },
    ];
    for (const call of calls) {
      expect((await t.request(call)).statusCode).toBe(401);
      expect((await t.request({ ...call, as: normal.cookie })).statusCode).toBe(403);
    }
    expect((await t.ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.id, row.id)))[0].status).toBe('ACTIVE');
  });
});
