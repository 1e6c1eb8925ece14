import { sql } from 'drizzle-orm';
import type { AppConfig } from '../config/env.ts';
import type { Executor } from '../conversations/conversation-store.ts';
import type { AppContext } from '../context.ts';
import { conversations } from '../db/schema/index.ts';
import { DEFAULT_PRICES_FILE, loadPrices, type Prices } from '../modules/pricing/pricing.service.ts';

/**
 * What a call costs, priced with the pricing calculator's unit prices (modules/pricing, PRICING_FILE), so
 * the cost next to a conversation and the calculator's estimate use the same numbers (docs/voice.md):
 * - the call: Twilio voice per started minute of CallDuration;
 * - speech recognition: one 15-second unit per <Gather> answer (Twilio bills started 15 s of speech);
 * - the recording kept for a month: recording storage per started minute;
 * - text to speech: per character sent to Azure (cached audio is not sent again, so not billed again).
 * LLM tokens are booked by the agent itself (agent/ask-llm.ts) onto the same conversation.
 */
const pricesByConfig = new WeakMap<AppConfig, Prices>();

export function callPrices(config: AppConfig): Prices {
  let prices = pricesByConfig.get(config);
  if (!prices) {
    prices = loadPrices(config.PRICING_FILE ?? DEFAULT_PRICES_FILE);
    pricesByConfig.set(config, prices);
  }
  return prices;
}

const startedMinutes = (seconds: number) => Math.ceil(Math.max(0, seconds) / 60);

export const costOfCallMinutes = (prices: Prices, seconds: number) => startedMinutes(seconds) * prices.voice.perMinute;
export const costOfRecording = (prices: Prices, seconds: number) => startedMinutes(seconds) * prices.recordingStorage.perMinutePerMonth;
export const costOfSpeechRecognition = (prices: Prices) => prices.speechRecognition.per15Seconds;
export const costOfTts = (prices: Prices, characters: number) => (characters * prices.tts.perMillionCharacters) / 1_000_000;

/**
 * Adds to the conversation's call cost and to its total (cost_usd, which the LLM bookings also add to), in
 * one statement; through `executor` when the booking commits with the caller's other rows.
 */
export async function bookCallCost(ctx: AppContext, conversationId: number, usd: number, ttsCharacters = 0, executor: Executor = ctx.db): Promise<void> {
  if (usd <= 0 && ttsCharacters <= 0) return;
  await executor
    .update(conversations)
    .set({
      callCostUsd: sql`${conversations.callCostUsd} + ${usd}`,
      costUsd: sql`${conversations.costUsd} + ${usd}`,
      ttsCharacters: sql`${conversations.ttsCharacters} + ${ttsCharacters}`,
    })
    .where(sql`${conversations.id} = ${conversationId}`);
}
