import { DEMO_AGENT_PREFIX, isDemoAgentMessage } from '@sales-agent/shared/agent';
import { expect, it } from 'vitest';
import { agentMessagesOf, buildPlaybook, conversationRow } from '../test/agent-factories.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from './agent.service.ts';

// No OPENAI_API_KEY: the offline demo agent answers.
const t = useTestApp();

it('walks the phases one per prospect message, labelled as the demo agent, and ends with a rating', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 3, checkingPrompt: 'Be polite.', triggerConversationPrompt: 'Anyone.' });
  const { id } = await startWebConversation(t.ctx, type.id);
  const phases: number[] = [];
  for (const text of ['Hi there', 'I need 40 widgets', 'Yes, book it']) {
    await receiveProspectMessage(t.ctx, id, text);
    await t.ctx.jobs.drain();
    phases.push((await conversationRow(t.ctx, id)).phase);
  }
  expect(phases).toEqual([1, 2, 3]);
  const replies = await agentMessagesOf(t.ctx, id);
  expect(replies).toEqual([
    'Hi! Interested in widgets?',
    `${DEMO_AGENT_PREFIX}Phase 2 of 3: Goal 1: learn what the prospect needs. You wrote: "Hi there".`,
    `${DEMO_AGENT_PREFIX}Phase 3 of 3: Goal 2: learn what the prospect needs. You wrote: "I need 40 widgets".`,
    // The last phase done: a closing reply confirms the next step (issue 24 item 7).
    `${DEMO_AGENT_PREFIX}Thank you! About "Yes, book it": a colleague will confirm the next step with you by the next business day.`,
  ]);
  expect(replies.slice(1).every(isDemoAgentMessage)).toBe(true);
  const ended = await conversationRow(t.ctx, id);
  expect(ended.rating).toBe(7);
  // Nothing was billed.
  expect(ended.promptTokens).toBe(0);
  expect(ended.costUsd).toBe(0);
});
