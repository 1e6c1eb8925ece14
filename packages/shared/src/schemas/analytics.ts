import { z } from 'zod';
import { ACCOUNT_TYPES } from '../enums.ts';
import { idParam } from './common.ts';
import { abTest } from './ab-tests.ts';

/** Channels the analytics filter knows: a web chat, a phone call, or a messaging account's type. */
export const ANALYTICS_CHANNELS = ['WEB', 'CALL', ...ACCOUNT_TYPES] as const;
export type AnalyticsChannel = (typeof ANALYTICS_CHANNELS)[number];

/** An instant, or a day (YYYY-MM-DD, UTC): as `from` the day's start, as `to` the whole day included. */
const instant = (name: string) =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: `${name} must be an ISO 8601 date or date-time, e.g. 2030-12-31 or 2030-12-31T10:00:00.000Z`,
  });

/**
 * Filters of every analytics figure (docs/analytics.md): conversations of one type created in [from, to).
 * `version`: `draft` (never-published types) or a published version number the conversations started on.
 */
export const analyticsQuery = z.object({
  conversationType: idParam,
  from: instant('from'),
  to: instant('to'),
  channel: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(ANALYTICS_CHANNELS, { error: `channel must be one of ${ANALYTICS_CHANNELS.join(', ')}` }))
    .optional(),
  messagingAccount: idParam.optional(),
  version: z.string().optional(),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuery>;

/** GET /api/admin/analytics/funnel (issue 26 contract). */
export const funnelResult = z.object({
  started: z.number(),
  steps: z.array(z.object({ phase: z.number(), label: z.string(), reached: z.number() })),
  ended: z.number(),
  booked: z.number(),
});
export type FunnelResult = z.infer<typeof funnelResult>;

const percentiles = z.object({ p50: z.number().nullable(), p90: z.number().nullable() });

/** GET /api/admin/analytics/speed (issue 26 contract): seconds from the prospect's first message to the first reply. */
export const speedResult = z.object({
  firstReplySeconds: percentiles,
  /** The same, only where the AI wrote the first reply / only where a person did. */
  agentFirstReplySeconds: percentiles,
  teamFirstReplySeconds: percentiles,
  /** Conversations with a prospect message, and those of them with a reply. */
  withProspectMessage: z.number(),
  replied: z.number(),
  /** Share (0..1) of those with a prospect message answered within 60 seconds; null when there are none. */
  answeredWithinMinuteShare: z.number().nullable(),
});
export type SpeedResult = z.infer<typeof speedResult>;

/** GET /api/admin/analytics/funnel/conversations: the conversations behind one funnel step. */
export const funnelConversationsQuery = analyticsQuery.extend({
  /** `started`, a phase 0..N (reached it), `ended` or `booked`. */
  step: z.union([z.enum(['started', 'ended', 'booked']), z.coerce.number().int().min(0).max(9998)]),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const funnelConversations = z.object({
  conversations: z.array(
    z.object({ id: z.number(), uuid: z.string(), phase: z.number(), maxPhase: z.number().nullable(), createdAt: z.string() }),
  ),
});

/** GET /api/admin/analytics/ab-test: the filters and which test (default: the type's newest). */
export const abComparisonQuery = analyticsQuery.extend({ abTest: idParam.optional() });

const interval = z.object({ low: z.number(), high: z.number() });

/**
 * The arms of an A/B test compared (docs/analytics.md "A/B tests"): each arm's funnel and conversion (ended or
 * booked) with its 95 % Wilson interval, and a two-proportion z-test of B against A.
 */
export const abComparison = z.object({
  test: abTest.nullable(),
  arms: z.array(
    z.object({
      arm: z.enum(['A', 'B']),
      version: z.number(),
      funnel: funnelResult,
      converted: z.number(),
      conversionRate: z.number().nullable(),
      interval: interval.nullable(),
    }),
  ),
  comparison: z
    .object({ difference: z.number(), differenceInterval: interval, z: z.number(), pValue: z.number(), significant: z.boolean() })
    .nullable(),
  /** The result in plain words, e.g. "The difference is not yet significant …". */
  verdict: z.string(),
});
export type AbComparison = z.infer<typeof abComparison>;

/** One row of GET /api/admin/analytics/cost: dollars spent on the conversations started in the range. */
export const costRow = z.object({
  /** `ALL` for the total, else WEB, CALL or a messaging account type. */
  channel: z.string(),
  conversations: z.number(),
  booked: z.number(),
  llmUsd: z.number(),
  /** Text to speech. */
  voiceUsd: z.number(),
  /** Call minutes, speech recognition and recording storage. */
  telephonyUsd: z.number(),
  totalUsd: z.number(),
  perConversationUsd: z.number().nullable(),
  /** Total ÷ conversations with a booked meeting; null without one. */
  perBookedUsd: z.number().nullable(),
});
export type CostRow = z.infer<typeof costRow>;
export const costResult = z.object({ total: costRow, byChannel: z.array(costRow) });
export type CostResult = z.infer<typeof costResult>;

/**
 * GET /api/admin/analytics/outcomes: per day (UTC) of creation, the conversations by outcome (docs/analytics.md):
 * `analysed` counts those with an outcome analysis by its outcome (names listed in `analysedOutcomes`, most
 * frequent first); the other fields count those without one, by their state.
 */
export const outcomesResult = z.object({
  analysedOutcomes: z.array(z.string()),
  days: z.array(
    z.object({
      day: z.string(),
      ended: z.number(),
      needsHuman: z.number(),
      errored: z.number(),
      ignored: z.number(),
      noResponse: z.number(),
      inProgress: z.number(),
      analysed: z.record(z.string(), z.number()),
    }),
  ),
});
export type OutcomesResult = z.infer<typeof outcomesResult>;

/** GET /api/admin/analytics/voice: the phone calls among the conversations (docs/analytics.md "Voice"). */
export const voiceResult = z.object({
  calls: z.number(),
  inbound: z.number(),
  outbound: z.number(),
  pickedUp: z.number(),
  voicemail: z.number(),
  /** Shares (0..1) of the calls; null without calls. */
  pickUpRate: z.number().nullable(),
  voicemailRate: z.number().nullable(),
  /** Mean billed length of the calls with a duration (seconds, one decimal). */
  averageDurationSeconds: z.number().nullable(),
  /**
   * The agent's response latency on realtime calls (caller stops speaking → first audio sent), milliseconds,
   * p50/p90 over every measured turn of the calls; `latencyCalls` the calls with at least one measured turn.
   */
  responseLatencyMs: percentiles,
  latencyCalls: z.number(),
});
export type VoiceResult = z.infer<typeof voiceResult>;

/**
 * GET /api/admin/analytics/campaigns (docs/analytics.md "Campaigns"): per campaign of the type, its contacts
 * that reached a final status in the range. ADMIN only figures: a NORMAL user gets an empty list.
 */
export const campaignFiguresResult = z.object({
  campaigns: z.array(
    z.object({
      id: z.number(),
      name: z.string(),
      channel: z.string(),
      status: z.string(),
      /** Contacts tried at least once (a call placed or a message queued). */
      contacted: z.number(),
      answered: z.number(),
      voicemail: z.number(),
      noAnswer: z.number(),
      sent: z.number(),
      booked: z.number(),
      optedOut: z.number(),
      failed: z.number(),
    }),
  ),
});
export type CampaignFiguresResult = z.infer<typeof campaignFiguresResult>;
/** One reason's hand-offs; `answerSeconds` from the hand-off to a person's first message after it. */
export const handoffReasonRow = z.object({
  /** HUMAN_REQUESTED, NOT_IN_KNOWLEDGE, GUARD_FAILED, NO_LLM or TAKEN_OVER (docs/analytics.md "Hand-offs"). */
  reason: z.string(),
  handoffs: z.number(),
  answered: z.number(),
  answerSeconds: percentiles,
});
export type HandoffReasonRow = z.infer<typeof handoffReasonRow>;

/** GET /api/admin/analytics/handoffs: how often the conversations went to a person, why, and how fast one answered. */
export const handoffsResult = z.object({
  /** Conversations in the filters, and those handed to a person at least once. */
  conversations: z.number(),
  handedOff: z.number(),
  /** handedOff ÷ conversations (0..1); null without conversations. */
  handedOffShare: z.number().nullable(),
  /** All of them: the totals, then one row per reason (most frequent first). */
  total: handoffReasonRow,
  byReason: z.array(handoffReasonRow),
});
export type HandoffsResult = z.infer<typeof handoffsResult>;

/** One follow-up rank (1st, 2nd …) or all of them (`number` null). */
export const followUpRow = z.object({
  number: z.number().nullable(),
  sent: z.number(),
  /** Follow-ups after which the prospect wrote (before the next follow-up). */
  broughtBack: z.number(),
  /** broughtBack ÷ sent (0..1); null when none was sent. */
  broughtBackShare: z.number().nullable(),
});
export type FollowUpRow = z.infer<typeof followUpRow>;

/**
 * GET /api/admin/analytics/follow-ups: the follow-ups sent to the conversations in the filters and what they
 * brought; `followedUp` counts the conversations that got at least one, `byNumber` the 1st, 2nd … of each.
 */
export const followUpsResult = z.object({ followedUp: z.number(), total: followUpRow, byNumber: z.array(followUpRow) });
export type FollowUpsResult = z.infer<typeof followUpsResult>;
