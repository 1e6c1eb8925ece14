import { LIMITS } from '@sales-agent/shared/limits';
import type { PricingResult } from '@sales-agent/shared/schemas/pricing';

/** Spec §2.8/§9: the four periods, in minutes, with their headings. */
export const PRICING_PERIODS = [
  { title: '1 Minute', minutes: LIMITS.pricingPeriodsMinutes[0] },
  { title: '1 Hour (60)', minutes: LIMITS.pricingPeriodsMinutes[1] },
  { title: '1 Day (1440)', minutes: LIMITS.pricingPeriodsMinutes[2] },
  { title: '160 Hours (9600)', minutes: LIMITS.pricingPeriodsMinutes[3] },
] as const;

/** The six rows of every cost table, in the spec's order. */
export const COST_ROWS: { key: keyof PricingResult; label: string }[] = [
  { key: 'totalGptCost', label: 'Total GPT Cost' },
  { key: 'totalAzureCost', label: 'Total Azure TTS Cost' },
  { key: 'voiceMinutes', label: 'Twilio Voice Minutes' },
  { key: 'speechRecognition', label: 'Twilio Speech Recognition' },
  { key: 'twilioRecordings', label: 'Twilio Recordings (Monthly)' },
  { key: 'totalCosts', label: 'Total Cost' },
];

/** A per-period cost: the 1-minute value scaled by the period's minutes (spec §2.8). */
export const scaleCost = (oneMinute: number, minutes: number) => oneMinute * minutes;

const dollars = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: LIMITS.pricingDecimals,
  maximumFractionDigits: LIMITS.pricingDecimals,
});
/** Dollars to 6 decimals (spec §9), with thousands separators so large monthly totals read at a glance. */
export const formatDollars = (value: number) => `$${dollars.format(value)}`;
