import { expect, it } from 'vitest';
import { buildPlaybook, conversationRow, agentMessagesOf, unansweredOf } from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { receiveProspectMessage, startWebConversation } from './agent.service.ts';

const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env({ LLM_TIMEOUT_MS: '200', LLM_MAX_RETRIES: '1' }) });

it('answers with the errorPrompt and sets -1 when the LLM does not answer in time', async () => {
  const type = await buildPlaybook(t.ctx, { errorPrompt: 'One moment please, we will get back to you.' });
  const { id } = await startWebConversation(t.ctx, type.id);
  fake.on('*', { hang: true });
  await receiveProspectMessage(t.ctx, id, 'hello?');
  await t.ctx.jobs.drain();
  expect((await conversationRow(t.ctx, id)).phase).toBe(-1);
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('One moment please, we will get back to you.');
  expect(fake.requests).toHaveLength(2); // timed out, retried once, timed out again
  const [error] = JSON.parse((await unansweredOf(t.ctx, id)).errors);
  expect(error).toMatchObject({ type: 'timeout', status: null, method: 'POST', url: `${fake.baseUrl}/chat/completions` });
});
