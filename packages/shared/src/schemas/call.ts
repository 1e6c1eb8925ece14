import { z } from 'zod';
import { INT4_MAX } from './common.ts';

/**
 * Phone calls (spec §2.5, §7.3; docs/voice.md). A number is E.164: a plus, a country code that does not
 * start with 0, at most 15 digits in all.
 */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;
export const E164_MESSAGE = 'The phone number must be in international E.164 format, e.g. +14155550123.';

export const isE164 = (value: string) => E164_PATTERN.test(value);

/** POST /api/admin/call/{phone}: the path parameter (checked in the handler, so the answer names the rule). */
export const placeCallParams = z.object({ phone: z.string().max(40, E164_MESSAGE) });

/** POST /api/admin/call/{phone} body (spec §7.3). */
export const placeCallBody = z.object({
  conversationTypeId: z
    .number({ error: 'conversationTypeId is required' })
    .int('conversationTypeId must be a whole number')
    .positive('conversationTypeId is required')
    .max(INT4_MAX, 'conversationTypeId: no such id'),
  /** The CRM contact the call is for (kept on the conversation); blank means none. */
  contactId: z
    .string({ error: 'contactId must be text' })
    .max(200, 'contactId is too long (at most 200 characters)')
    .nullish()
    .transform((v) => (v && v.trim() ? v.trim() : null)),
  /** Realtime voice agent (default, spec §9) or the classic speech pipeline. */
  useRealtimeApi: z.boolean({ error: 'useRealtimeApi must be true or false' }).optional().default(true),
});
export type PlaceCallBody = z.input<typeof placeCallBody>;

export const placeCallResult = z.object({ uuid: z.string() });

/** Twilio's call statuses plus `voicemail` (a machine answered). */
export const CALL_STATUSES = [
  'queued',
  'initiated',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
  'voicemail',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** GET /api/conversation/{uuid}/call: the call behind a conversation, null for chats. */
export const callInfo = z.object({
  call: z
    .object({
      status: z.string().nullable(),
      direction: z.enum(['outbound', 'inbound']).nullable(),
      useRealtimeApi: z.boolean().nullable(),
      answeredBy: z.string().nullable(),
      /** Seconds, once the call has ended. */
      duration: z.number().nullable(),
      recordingUrl: z.string().nullable(),
      recordingDuration: z.number().nullable(),
      ttsCharacters: z.number(),
      /** Telephony and speech cost (Twilio minutes, recording, speech recognition, TTS), USD. */
      callCostUsd: z.number(),
      /** The conversation's total: callCostUsd plus the LLM tokens. */
      totalCostUsd: z.number(),
      /**
       * Realtime calls: the agent's response latency (caller stops speaking → first audio sent), milliseconds,
       * over the call's `turns` measured (docs/analytics.md "Voice"); p50/p90 null before the first.
       */
      responseLatencyMs: z.object({ p50: z.number().nullable(), p90: z.number().nullable(), turns: z.number() }),
    })
    .nullable(),
});
export type CallInfo = z.infer<typeof callInfo>;
