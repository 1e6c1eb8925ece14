import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { conversations } from '../../db/schema/index.ts';

/** Samples kept per call: a long call stays one small array (a turn every few seconds for over an hour). */
export const MAX_LATENCY_SAMPLES = 1000;

/**
 * The agent's response latency on a realtime call (docs/analytics.md "Voice"): from the moment the bridge hears
 * OpenAI's `input_audio_buffer.speech_stopped` (the caller stopped speaking; OpenAI's VAD has already waited its
 * silence window) to the moment the first audio of the answer goes out to Twilio. One sample per caller turn: a
 * new `speech_started` (the caller goes on) restarts the wait, and only the first audio after a stop counts.
 */
export class ResponseLatency {
  private stoppedAt: number | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  speechStopped(): void {
    this.stoppedAt = this.now();
  }

  speechStarted(): void {
    this.stoppedAt = null;
  }

  /** Agent audio was sent: the latency in whole milliseconds when this is the first since the caller stopped. */
  audioSent(): number | null {
    if (this.stoppedAt === null) return null;
    const ms = Math.max(0, Math.round(this.now() - this.stoppedAt));
    this.stoppedAt = null;
    return ms;
  }
}

/** p50/p90 of a call's samples, interpolated like PostgreSQL's percentile_cont (the analytics figures' way). */
export function latencySummary(samples: number[]): { p50: number | null; p90: number | null; turns: number } {
  if (samples.length === 0) return { p50: null, p90: null, turns: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => {
    const pos = p * (sorted.length - 1);
    const low = Math.floor(pos);
    return Math.round(sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (pos - low));
  };
  return { p50: at(0.5), p90: at(0.9), turns: sorted.length };
}

/** Appends one sample to the call's conversation (one statement, beside the audio). */
export async function storeResponseLatency(ctx: AppContext, conversationId: number, ms: number): Promise<void> {
  const c = conversations;
  await ctx.db
    .update(c)
    .set({ responseLatenciesMs: sql`array_append(coalesce(${c.responseLatenciesMs}, '{}'::int[]), ${ms}::int)` })
    .where(sql`${c.id} = ${conversationId} and coalesce(cardinality(${c.responseLatenciesMs}), 0) < ${MAX_LATENCY_SAMPLES}`);
}
