import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sendFollowUp } from './follow-up.ts';
import { messages } from '../db/schema/index.ts';
import { WEB_OPT_OUT_CONFIRMATION, WEB_RESUBSCRIBE_CONFIRMATION } from '../conversations/opt-out.ts';
import { settle } from '../test/channel-factories.ts';
import { usePlaybook, useTestApp, useUser } from '../test/use-test-app.ts';

/**
 * Web-chat opt-out (issue 23, docs/compliance.md "Web chat"): a visitor's STOP or plain-language opt-out
 * is confirmed in the chat, and then the chat gets no answer and no follow-up until START or a person's clear.
 */
describe('opt-out in a web chat', () => {
  const t = useTestApp();
  const admin = useUser(t, 'ADMIN');
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: 'Nudge them.' });

  const newChat = async () => (await t.request({ method: 'POST', url: '/api/conversation/new', payload: { conversationTypeId: playbook.id } })).json<{ uuid: string; id: number }>();
  const write = async (uuid: string, message: string) => {
    expect((await t.request({ method: 'POST', url: `/api/conversation/${uuid}/written-message`, payload: { message } })).statusCode).toBe(200);
    await settle(t.ctx);
  };
  const detail = async (uuid: string) => (await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie })).json();
  const agentLines = async (id: number) =>
    (await t.ctx.db.select().from(messages).where(eq(messages.conversationId, id)).orderBy(asc(messages.id))).filter((m) => m.role === 'AGENT').map((m) => m.message);

  it.each(['STOP', "Please don't contact me again"])('"%s": confirmed in the chat, then no answer and no follow-up; START answers again', async (words) => {
    const chat = await newChat();
    const { id } = await detail(chat.uuid);
    await write(chat.uuid, 'Hi, what do you sell?');
    expect(await agentLines(id)).toHaveLength(1);
    await write(chat.uuid, words);
    expect((await agentLines(id)).slice(1)).toEqual([WEB_OPT_OUT_CONFIRMATION]);
    expect((await detail(chat.uuid)).doNotContact).toEqual({ web: { since: expect.any(String), how: words === 'STOP' ? 'keyword "STOP"' : 'plain-language opt-out' } });

    await write(chat.uuid, 'One more question');
    expect(await agentLines(id)).toHaveLength(2);
    expect(await sendFollowUp(t.ctx, id, { manual: false })).toBe('skipped');
    await expect(sendFollowUp(t.ctx, id, { manual: true })).rejects.toMatchObject({ status: 409, code: 'OPTED_OUT' });

    await write(chat.uuid, 'START');
    expect((await agentLines(id)).at(-1)).toBe(WEB_RESUBSCRIBE_CONFIRMATION);
    expect((await detail(chat.uuid)).doNotContact).toBeNull();
    await write(chat.uuid, 'So, the price?');
    expect(await agentLines(id)).toHaveLength(4);
  });

  it("a person clears a web chat's opt-out with a note", async () => {
    const chat = await newChat();
    const { id } = await detail(chat.uuid);
    await write(chat.uuid, 'STOP');
    const res = await t.request({ method: 'POST', url: `/api/conversation/${id}/do-not-contact/clear`, as: admin.cookie, payload: { note: 'Visitor asked on the phone to continue.' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Opt-out cleared', doNotContact: null });
  });
});
