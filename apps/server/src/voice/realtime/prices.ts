import type { RealtimeResponseUsage } from 'openai/resources/realtime/realtime';

/**
 * USD per 1 million realtime tokens (https://openai.com/api/pricing/, late 2026): audio and text are priced
 * apart, cached input at its own rate. A model not listed costs 0, like unknown chat models.
 */
export const REALTIME_PRICES_PER_MILLION: Record<string, { audioIn: number; audioOut: number; textIn: number; textOut: number; cachedIn: number }> = {
  'gpt-realtime': { audioIn: 32, audioOut: 64, textIn: 4, textOut: 16, cachedIn: 0.4 },
  'gpt-realtime-mini': { audioIn: 10, audioOut: 20, textIn: 0.6, textOut: 2.4, cachedIn: 0.3 },
  'gpt-4o-realtime-preview': { audioIn: 40, audioOut: 80, textIn: 5, textOut: 20, cachedIn: 2.5 },
  'gpt-4o-mini-realtime-preview': { audioIn: 10, audioOut: 20, textIn: 0.6, textOut: 2.4, cachedIn: 0.3 },
};
const byLongestFirst = Object.keys(REALTIME_PRICES_PER_MILLION).sort((a, b) => b.length - a.length);

export function realtimeCostOf(model: string, usage: RealtimeResponseUsage): number {
  const name = model.toLowerCase();
  const key = byLongestFirst.find((k) => name === k || name.startsWith(`${k}-`));
  if (!key) return 0;
  const p = REALTIME_PRICES_PER_MILLION[key];
  const input = usage.input_token_details ?? {};
  const output = usage.output_token_details ?? {};
  const cached = input.cached_tokens ?? 0;
  const audioIn = input.audio_tokens ?? 0;
  const textIn = input.text_tokens ?? Math.max(0, (usage.input_tokens ?? 0) - audioIn);
  // Cached tokens are part of the input counts; they are billed at the cached rate instead.
  const uncachedIn = Math.max(0, audioIn * p.audioIn + textIn * p.textIn - cached * Math.max(p.audioIn, p.textIn));
  const audioOut = output.audio_tokens ?? 0;
  const textOut = output.text_tokens ?? Math.max(0, (usage.output_tokens ?? 0) - audioOut);
  return (uncachedIn + cached * p.cachedIn + audioOut * p.audioOut + textOut * p.textOut) / 1_000_000;
}
