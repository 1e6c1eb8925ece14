import type { AppConfig } from '../../config/env.ts';
import type { AppContext } from '../../context.ts';
import { createDemoProvider } from './demo-provider.ts';
import { createOpenAiProvider } from './openai-provider.ts';
import type { LlmProvider } from './provider.ts';

const providers = new WeakMap<AppConfig, LlmProvider>();

/** The one place the provider is chosen: OpenAI-compatible with OPENAI_API_KEY, else the offline demo agent. */
export function getLlmProvider(ctx: Pick<AppContext, 'config'>): LlmProvider {
  let provider = providers.get(ctx.config);
  if (!provider) {
    provider = ctx.config.OPENAI_API_KEY ? createOpenAiProvider(ctx.config) : createDemoProvider();
    providers.set(ctx.config, provider);
  }
  return provider;
}
