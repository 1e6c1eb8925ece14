import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversationTypes } from '../../db/schema/index.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import {
  at,
  buildConversation,
  buildConversationType,
  buildMessagingAccount,
  buildProspect,
  grantAccount,
} from '../../test/conversation-factories.ts';

/**
 * The detail read is one statement with phases and messages as JSON (conversations.service.ts
 * readConversationDetail): what JSON could change — timestamps, ordering, text, numbers, empty arrays, absent
 * joins — must come out exactly as the column-by-column read answered it.
 */

const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const granted = useUser(t);
const stranger = useUser(t);

const read = (uuid: string, as?: string) => t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as });

describe('GET /api/conversation/:uuid answers every field exactly', () => {
  it('keeps message order (date, then id), text, ids and timestamps to the millisecond in UTC', async () => {
    const type = await buildConversationType(t.ctx, { title: 'Exact "type"', phases: 2, initialMessage: null });
    const text = 'Quotes " and \\ backslash, tab\tnewline\nunicode é 漢字 😀 and </script>';
    const conversation = await buildConversation(t.ctx, {
      conversationTypeId: type.id,
      phase: 2,
      messages: [
        { role: 'AGENT', message: 'latest', dateSent: at(5) },
        { role: 'PROSPECT', message: text, dateSent: at(1) },
        { role: 'SYSTEM', message: 'third', dateSent: at(5) },
      ],
    });
    // A microsecond timestamp (PostgreSQL keeps them; the API answers milliseconds, truncated, as before).
    await t.ctx.db.execute(
      sql`update messages set date_sent = '2025-01-01 00:07:08.123999+02' where conversation_id = ${conversation.id} and role = 'SYSTEM'`,
    );
    const [first, second, third] = conversation.messages;

    const res = await read(conversation.uuid, admin.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: conversation.id,
      uuid: conversation.uuid,
      phase: 2,
      rating: null,
      recordingDuration: null,
      recordingUrl: null,
      conversationTypeId: type.id,
      typeVersion: null,
      ConversationType: {
        id: type.id,
        title: 'Exact "type"',
        initialMessage: null,
        conversation_phases: [
          { index: 0, prompt: expect.stringContaining('Phase 0 goal') },
          { index: 1, prompt: expect.stringContaining('Phase 1 goal') },
        ],
      },
      phaseCount: 2,
      prospectId: null,
      Prospect: null,
      messages: [
        { id: third.id, role: 'SYSTEM', message: 'third', dateSent: '2024-12-31T22:07:08.123Z', author: { kind: 'ai' } },
        { id: second.id, role: 'PROSPECT', message: text, dateSent: at(1).toISOString(), author: { kind: 'prospect' } },
        { id: first.id, role: 'AGENT', message: 'latest', dateSent: at(5).toISOString(), author: { kind: 'ai' } },
      ],
      canAdminister: true,
      aiPaused: false,
      isDemoAgent: true,
      // Phase 2 of a 2-phase type: the playbook has ended.
      ended: true,
      // No agent actions yet (issue 22): no bookings, and the admin's empty tool-call list.
      bookings: [],
      leadFields: {},
      leadFieldDefinitions: [],
      analysis: null,
      toolCalls: [],
      doNotContact: null,
      // The team's workspace (issue 24).
      assignee: null,
      state: 'open',
      snoozedUntil: null,
      notes: [],
      contact: null,
    });
  });

  it('orders messages sent at the same moment by id', async () => {
    const conversation = await buildConversation(t.ctx, {
      messages: [
        { role: 'PROSPECT', message: 'a', dateSent: at(3) },
        { role: 'AGENT', message: 'b', dateSent: at(3) },
        { role: 'PROSPECT', message: 'c', dateSent: at(3) },
      ],
    });
    const body = (await read(conversation.uuid)).json();
    expect(body.messages.map((m: { message: string }) => m.message)).toEqual(['a', 'b', 'c']);
  });

  it('a visitor reads the type\'s public title, never its internal title; the team reads the internal one (issue 24)', async () => {
    const type = await buildConversationType(t.ctx, { title: 'Q4 solar — aggressive closer v3', phases: 1 });
    const chat = await buildConversation(t.ctx, { conversationTypeId: type.id, messages: [{ role: 'AGENT', message: 'hi', dateSent: at(1) }] });
    const visitor = await read(chat.uuid);
    expect(visitor.json().ConversationType.title).toBe('Chat');
    expect(visitor.body).not.toContain('aggressive closer');
    await t.ctx.db.update(conversationTypes).set({ config: JSON.stringify({ publicTitle: 'Talk to Sunny Roofs' }) }).where(sql`${conversationTypes.id} = ${type.id}`);
    expect((await read(chat.uuid)).json().ConversationType.title).toBe('Talk to Sunny Roofs');
    expect((await read(chat.uuid, admin.cookie)).json().ConversationType.title).toBe('Q4 solar — aggressive closer v3');
  });

  it('answers a conversation without a type or messages with null and empty arrays', async () => {
    const conversation = await buildConversation(t.ctx, { conversationTypeId: null, phase: 0 });
    const res = await read(conversation.uuid);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ConversationType: null, conversationTypeId: null, phaseCount: 0, messages: [], ended: false, canAdminister: false });
  });

  it('applies the viewing rules: a NORMAL user on a web chat sees no prompts; a prospect conversation exists only for ADMIN and granted users', async () => {
    const type = await buildConversationType(t.ctx, { phases: 1 });
    const webChat = await buildConversation(t.ctx, { conversationTypeId: type.id, messages: [{ role: 'AGENT', message: 'hi', dateSent: at(1) }] });
    const asNormal = (await read(webChat.uuid, granted.cookie)).json();
    expect(asNormal).toMatchObject({ canAdminister: false, phaseCount: 1, ConversationType: { conversation_phases: [] } });

    const account = await buildMessagingAccount(t.ctx, { pageName: 'Detail page' });
    const other = await buildMessagingAccount(t.ctx);
    await grantAccount(t.ctx, granted.id, account.id);
    // The stranger holds a grant too, on another account: a grant must match the conversation's account.
    await grantAccount(t.ctx, stranger.id, other.id);
    const prospect = await buildProspect(t.ctx, account.id);
    const conversation = await buildConversation(t.ctx, { conversationTypeId: type.id, prospectId: prospect.id, messages: [] });

    for (const as of [admin.cookie, granted.cookie]) {
      const res = await read(conversation.uuid, as);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        canAdminister: true,
        Prospect: { uuid: prospect.uuid, name: null, messagingAccount: { id: account.id, pageName: 'Detail page', type: 'INSTAGRAM' } },
        ConversationType: { conversation_phases: [{ index: 0, prompt: expect.any(String) }] },
      });
    }
    for (const as of [undefined, stranger.cookie]) {
      const res = await read(conversation.uuid, as);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'CONVERSATION_NOT_FOUND', error: 'Conversation not found' });
    }
  });
});
