/**
 * USD per 1 million tokens (input, output) for models we know, from https://openai.com/api/pricing/
 * (standard tier, as of 2025-08; see docs/agent.md). A dated model name such as `gpt-4o-mini-2024-07-18`
 * matches its family by the longest prefix. Unknown models (local or third-party servers) cost 0.
 */
export const MODEL_PRICES_PER_MILLION: Record<string, { input: number; output: number }> = {
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'o3': { input: 2, output: 8 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
};

const byLongestFirst = Object.keys(MODEL_PRICES_PER_MILLION).sort((a, b) => b.length - a.length);

/** The cost in USD of one call, 0 for a model not in the table. */
export function costOf(model: string, promptTokens: number, completionTokens: number): number {
  const name = model.toLowerCase();
  const key = byLongestFirst.find((k) => name === k || name.startsWith(`${k}-`));
  if (!key) return 0;
  const price = MODEL_PRICES_PER_MILLION[key];
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}
