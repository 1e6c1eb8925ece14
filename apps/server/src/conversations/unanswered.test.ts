import { describe, expect, it } from 'vitest';
import { buildPlaybook, buildProspectConversation, unansweredOf } from '../test/agent-factories.ts';
import { useTestApp } from '../test/use-test-app.ts';
import type { AgentErrorRecord } from './agent-errors.ts';
import { recordAgentError } from './unanswered.ts';

const error = (code: string): AgentErrorRecord => ({ message: `failure ${code}`, type: 'test', code, status: null, method: null, url: null, response: null, details: null });

describe('recordAgentError', () => {
  const t = useTestApp();

  it('keeps both of two errors recorded at the same moment, with or without an entry already there', async () => {
    const type = await buildPlaybook(t.ctx);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    await Promise.all([recordAgentError(t.ctx, conversation.id, error('A')), recordAgentError(t.ctx, conversation.id, error('B'))]);
    let codes = JSON.parse((await unansweredOf(t.ctx, conversation.id)).errors).map((e: { code: string }) => e.code);
    expect(codes.sort()).toEqual(['A', 'B']);
    await Promise.all([recordAgentError(t.ctx, conversation.id, error('C')), recordAgentError(t.ctx, conversation.id, error('D'))]);
    codes = JSON.parse((await unansweredOf(t.ctx, conversation.id)).errors).map((e: { code: string }) => e.code);
    expect(codes.sort()).toEqual(['A', 'B', 'C', 'D']);
    expect((await unansweredOf(t.ctx, conversation.id)).status).toBe('ACTIVE');
  });
});
