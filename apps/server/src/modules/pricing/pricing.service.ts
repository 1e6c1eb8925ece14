import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PricingQuery, PricingResult } from '@sales-agent/shared/schemas/pricing';
import { z } from 'zod';

/** The bundled unit prices; PRICING_FILE points to a replacement with the same shape (docs/pricing.md). */
export const DEFAULT_PRICES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'prices.json');

const price = z.number().min(0);
const provenance = { source: z.string().optional(), asOf: z.string().optional() };

/** The shape of a prices file. Every price is in US dollars. */
export const pricesSchema = z.object({
  currency: z.literal('USD').optional(),
  /** How many characters make one LLM token on average (English text ≈ 4). */
  charactersPerToken: z.number().positive(),
  llm: z.object({ model: z.string().optional(), inputPerMillionTokens: price, outputPerMillionTokens: price, ...provenance }),
  tts: z.object({ service: z.string().optional(), perMillionCharacters: price, ...provenance }),
  voice: z.object({ service: z.string().optional(), perMinute: price, ...provenance }),
  speechRecognition: z.object({ service: z.string().optional(), per15Seconds: price, ...provenance }),
  recordingStorage: z.object({ service: z.string().optional(), perMinutePerMonth: price, ...provenance }),
});
export type Prices = z.infer<typeof pricesSchema>;

/** Reads and checks a prices file; a missing or malformed file stops the start with a clear message. */
export function loadPrices(file: string): Prices {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the prices file ${file}: ${(err as Error).message}`);
  }
  const parsed = pricesSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid prices file ${file}: ${problems}`);
  }
  return parsed.data;
}

/**
 * Costs of ONE minute of a voice conversation (docs/pricing.md has the formulas):
 * - every agent message is one LLM call that reads the system and user prompts and writes the message;
 * - every agent message is spoken by the TTS voice;
 * - the call itself, speech recognition (billed per started 15 s, i.e. 4 per minute) and one minute of
 *   recording kept in storage for a month.
 */
export function estimateConversationCost(prices: Prices, input: PricingQuery): PricingResult {
  const perMillion = 1_000_000;
  const inputTokens = (input.systemPromptLength + input.userPromptLength) / prices.charactersPerToken;
  const outputTokens = input.messagesLength / prices.charactersPerToken;
  const totalGptCost =
    input.messagesPerMinute *
    ((inputTokens * prices.llm.inputPerMillionTokens) / perMillion +
      (outputTokens * prices.llm.outputPerMillionTokens) / perMillion);
  const totalAzureCost = (input.messagesPerMinute * input.messagesLength * prices.tts.perMillionCharacters) / perMillion;
  const voiceMinutes = prices.voice.perMinute;
  const speechRecognition = 4 * prices.speechRecognition.per15Seconds;
  const twilioRecordings = prices.recordingStorage.perMinutePerMonth;
  return {
    totalGptCost,
    totalAzureCost,
    voiceMinutes,
    speechRecognition,
    twilioRecordings,
    totalCosts: totalGptCost + totalAzureCost + voiceMinutes + speechRecognition + twilioRecordings,
  };
}
