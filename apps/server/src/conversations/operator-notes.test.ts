import { describe, expect, it } from 'vitest';
import { useTestApp, useUser } from '../test/use-test-app.ts';
import { at, buildConversation, buildConversationType, buildMessagingAccount, buildProspect, grantAccount } from '../test/conversation-factories.ts';
import { OPERATOR_NOTES, systemNoteForViewer } from './operator-notes.ts';

/**
 * Issue 24: a stored "no AI model" note names OPENAI_API_KEY; an ADMIN reads what to set, a team member (role
 * NORMAL) never sees a server setting and is told to ask their admin — in the detail and in the list preview.
 */
const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const member = useUser(t);

describe('system notes for operators', () => {
  it('keeps the ADMIN text; gives a member the ask-your-admin words, also for a cut preview and unknown setting names', () => {
    const { noLlm, voiceNoteNoTranscription } = OPERATOR_NOTES;
    expect(systemNoteForViewer(noLlm.admin, true)).toBe(noLlm.admin);
    expect(systemNoteForViewer(noLlm.admin, false)).toBe(noLlm.member);
    expect(systemNoteForViewer(noLlm.admin.slice(0, 60), false)).toBe(noLlm.member);
    expect(systemNoteForViewer(voiceNoteNoTranscription.admin, false)).toBe(voiceNoteNoTranscription.member);
    for (const n of Object.values(OPERATOR_NOTES)) {
      expect(n.member).not.toMatch(/[A-Z]+_[A-Z_]+/);
      expect(n.member).toMatch(/Ask your admin/);
    }
    expect(systemNoteForViewer('Sending failed (META_APP_ID, META_APP_SECRET): try again later.', false)).toBe('Sending failed: try again later.');
    expect(systemNoteForViewer('The prospect opted out.', false)).toBe('The prospect opted out.');
  });

  it('shows the stored note per role in GET /api/conversation/{uuid} and in the list preview', async () => {
    const account = await buildMessagingAccount(t.ctx);
    await grantAccount(t.ctx, member.id, account.id);
    const prospect = await buildProspect(t.ctx, account.id);
    const type = await buildConversationType(t.ctx, { phases: 1 });
    const conversation = await buildConversation(t.ctx, {
      conversationTypeId: type.id,
      prospectId: prospect.id,
      phase: -2,
      messages: [
        { role: 'PROSPECT', message: 'Is this a bot?', dateSent: at(1) },
        { role: 'SYSTEM', message: OPERATOR_NOTES.noLlm.admin, dateSent: at(2) },
      ],
    });
    const note = async (as: string) => {
      const res = await t.request({ method: 'GET', url: `/api/conversation/${conversation.uuid}`, as });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().messages.find((m: { role: string }) => m.role === 'SYSTEM').message;
    };
    const preview = async (as: string) => {
      const res = await t.request({ method: 'GET', url: '/api/conversation/list?limit=100', as });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().conversations.find((c: { uuid: string }) => c.uuid === conversation.uuid).lastMessage.preview;
    };
    expect(await note(admin.cookie)).toContain('OPENAI_API_KEY');
    expect(await preview(admin.cookie)).toContain('OPENAI_API_KEY');
    expect(await note(member.cookie)).toBe(OPERATOR_NOTES.noLlm.member);
    expect(await preview(member.cookie)).toBe(OPERATOR_NOTES.noLlm.member);
  });
});
