import { z } from 'zod';

/** A required, non-negative number from the query string (spec §5: all four inputs are required numbers). */
const requiredNumber = (name: string, max: number) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .transform((v) => Number(v))
    .pipe(
      z
        .number({ error: `${name} must be a number` })
        .refine(Number.isFinite, `${name} must be a number`)
        .min(0, `${name} must be 0 or more`)
        .max(max, `${name} must be at most ${max}`),
    );

/** GET /api/admin/pricing/conversation (spec §7.5). Lengths are in characters. */
export const pricingQuery = z.object({
  /** Characters of the system prompt sent with every agent reply (role prompt and phase prompt). */
  systemPromptLength: requiredNumber('systemPromptLength', 10_000_000),
  /** Characters of the user part sent with every reply (conversation history and instructions). */
  userPromptLength: requiredNumber('userPromptLength', 10_000_000),
  /** Characters of one agent message (what the model writes and the voice speaks). */
  messagesLength: requiredNumber('messagesLength', 1_000_000),
  /** Agent messages per minute of conversation. */
  messagesPerMinute: requiredNumber('messagesPerMinute', 10_000),
});
export type PricingQuery = z.infer<typeof pricingQuery>;

/** Costs in US dollars for ONE minute of conversation (spec §3 "Pricing result"); the web scales them. */
export const pricingResult = z.object({
  totalGptCost: z.number(),
  totalAzureCost: z.number(),
  voiceMinutes: z.number(),
  speechRecognition: z.number(),
  /** Storage of one minute of recording for a month. */
  twilioRecordings: z.number(),
  /** The four usage rows plus twilioRecordings. */
  totalCosts: z.number(),
});
export type PricingResult = z.infer<typeof pricingResult>;
