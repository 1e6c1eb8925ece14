import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../config/env.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { createOpenAiProvider, takesTemperature } from './openai-provider.ts';
import type { LlmRequest } from './provider.ts';

/** Issue 19: models that reject `temperature` (reasoning models) still work. No database involved. */
const fake = new OpenAiFake();

const request = (model: string): LlmRequest<{ pass: boolean; reason: string }> => ({
  purpose: 'guard',
  model,
  temperature: 0.2,
  messages: [{ role: 'user', content: 'Check this draft.' }],
  answer: {
    name: 'guard_check',
    schema: { type: 'object', properties: { pass: { type: 'boolean' }, reason: { type: 'string' } }, required: ['pass', 'reason'], additionalProperties: false },
    parse: z.object({ pass: z.boolean(), reason: z.string() }),
  },
  facts: { phaseIndex: 0, phaseCount: 1, phasePrompt: '', followUpPrompt: null, lastProspectMessage: null, toolNotes: [], prospectMessageCount: 0 },
});

describe('temperature and reasoning models', () => {
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const provider = () => createOpenAiProvider(loadConfig({ APP_SECRET: 'test-secret-test-secret-test-secret', ...fake.env(), LLM_MAX_RETRIES: '0' }));

  it('sends temperature only to models that take it', async () => {
    expect(takesTemperature('gpt-4o-mini')).toBe(true);
    expect(['o3', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.1', 'openai/o1'].map(takesTemperature)).toEqual([false, false, false, false, false, false]);
    const llm = provider();
    await llm.complete(request('gpt-4o-mini'));
    await llm.complete(request('gpt-5-mini'));
    expect(fake.requests.map((r) => [r.model, r.temperature])).toEqual([
      ['gpt-4o-mini', 0.2],
      ['gpt-5-mini', undefined],
    ]);
  });

  it("retries without temperature on the documented 400 (param temperature, unsupported_value) and stops sending it to that model", async () => {
    fake.rejectsTemperature = /^my-reasoner$/;
    const llm = provider();
    const first = await llm.complete(request('my-reasoner'));
    expect(first.value).toEqual({ pass: true, reason: '' });
    await llm.complete(request('my-reasoner'));
    expect(fake.requests.map((r) => r.temperature)).toEqual([0.2, undefined, undefined]);
  });
});
