import { z } from 'zod';
import { bookingConfig } from './booking-config.ts';
import { customToolsConfig } from './custom-tools.ts';
import { leadFieldsConfig } from './lead-fields.ts';

/**
 * How a conversation started from a CRM contact ended (docs/crm.md write-back): `ended` phase N reached,
 * `needsHuman` phase -2, `errored` phase -1, `unfinished` the call hung up while still in a working phase,
 * `notReached` the call was never answered (busy, no-answer, failed, canceled).
 */
export const CRM_OUTCOMES = ['ended', 'needsHuman', 'errored', 'unfinished', 'notReached'] as const;
export type CrmOutcome = (typeof CRM_OUTCOMES)[number];

/** The keys of `stageOnOutcome`: how a conversation ended, and `booked` (issue 22: the agent booked a meeting). */
export const STAGE_EVENTS = [...CRM_OUTCOMES, 'booked'] as const;
export type StageEvent = (typeof STAGE_EVENTS)[number];

/** Issue 21: when the knowledge base does not answer, the agent says it will find out or hands over. */
export const KNOWLEDGE_WHEN_UNKNOWN = ['find-out', 'hand-over'] as const;

/** OpenAI Realtime voices (voice.realtimeVoice). */
export const REALTIME_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;

/** Days of the week of `businessHours.days`. */
export const WEEK_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

export const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time such as 09:00');
const openHours = z
  .tuple([clockTime, clockTime])
  .refine(([open, close]) => open < close, 'the opening time must be before the closing time, e.g. ["09:00", "17:00"]');

/**
 * Business hours (docs/compliance.md): follow-ups, calls and campaign sends of this type happen only inside
 * them (and never in the person's quiet hours); replies to a prospect who just wrote are not delayed. A day
 * that is not listed is closed. Unset: every day, quiet hours only.
 */
export const businessHoursConfig = z.strictObject({
  timeZone: z.string().refine((zone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as America/New_York'),
  days: z
    .partialRecord(z.enum(WEEK_DAYS, { error: `must be one of ${WEEK_DAYS.join(', ')}` }), openHours)
    .refine((days) => Object.keys(days).length > 0, 'must open on at least one day'),
});
export type BusinessHoursConfig = z.infer<typeof businessHoursConfig>;

/**
 * The known fields of a conversation type's `config` JSON (DESIGN.md §6). Unknown fields are kept (the
 * config is the admin's scratch space too); known fields must have the right shape or the server answers
 * 400 naming the field. The bare value "GHL" (spec §3) marks a CRM-linked type, as does `{ "crm": "GHL" }`.
 */
export const conversationTypeConfigObject = z.looseObject({
  /** Seconds to wait for more prospect messages before answering (phase -3 meanwhile). */
  replyDebounceSeconds: z.number().min(0).max(600).optional(),
  followUp: z
    .looseObject({
      /** Minutes after the last agent message before each follow-up; the last value repeats. */
      delaysMinutes: z.array(z.number().positive().max(60 * 24 * 30)).min(1).max(20).optional(),
      /** Maximum number of follow-ups per silence. */
      max: z.number().int().min(0).max(20).optional(),
    })
    .optional(),
  /** LLM model name for this type (overrides LLM_MODEL). */
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  voice: z
    .looseObject({
      name: z.string().min(1).max(200).optional(),
      language: z.string().min(2).max(20).optional(),
      /** The OpenAI voice of realtime calls (docs/voice.md "Realtime"); `name` is the classic pipeline's Azure voice. */
      realtimeVoice: z.enum(REALTIME_VOICES, { error: `must be one of ${REALTIME_VOICES.join(', ')}` }).optional(),
      /** The human a realtime call is transferred to when the caller asks for a person (E.164). */
      transferNumber: z
        .string()
        .trim()
        .regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164 format, e.g. +15551234567')
        .optional(),
      /** Azure neural voice of the classic call pipeline (docs/voice.md); an Azure-shaped `name` works too. */
      azureVoice: z
        .string()
        .regex(/^[a-z]{2,3}-[A-Z]{2,4}(-[A-Za-z]+)?-[A-Za-z0-9]+$/, 'must be an Azure voice name such as en-US-JennyNeural')
        .optional(),
      /**
       * Said at the start of every call, before the agent speaks (docs/compliance.md "Calls"): the AI
       * disclosure (absent: DEFAULT_CALL_DISCLOSURE; `false`: none) and the recording notice (absent:
       * DEFAULT_RECORDING_NOTICE, as every call is recorded; `false`: none).
       */
      disclosure: z.union([z.literal(false), z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters')]).optional(),
      recordingNotice: z.union([z.literal(false), z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters')]).optional(),
      /** What the agent leaves when a call reaches an answering machine (docs/voice.md); without it the call hangs up. */
      voicemailMessage: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').optional(),
    })
    .optional(),
  /**
   * Issue 21: what the agent does when the knowledge base does not answer a question (docs/knowledge.md):
   * `find-out` (default) says it will find out; `hand-over` hands the conversation to a person.
   */
  knowledge: z.looseObject({ whenUnknown: z.enum(KNOWLEDGE_WHEN_UNKNOWN).optional() }).optional(),
  /**
   * The chat's name as visitors and prospects see it (issue 24), e.g. "Talk to Smile Studio": the type's own
   * title is the team's internal name and is never shown to them. Absent: PUBLIC_CHAT_TITLE.
   */
  publicTitle: z.string().trim().min(1, 'must not be empty').max(80, 'must be at most 80 characters').optional(),
  /** The calendar the agent books into (booking-config.ts). */
  booking: bookingConfig.optional(),
  /** When automated contact of this type may happen (businessHoursConfig). */
  businessHours: businessHoursConfig.optional(),
  /**
   * The AI disclosure line put before the agent's first message to a prospect on SMS and WhatsApp
   * (docs/compliance.md): absent, DEFAULT_AI_DISCLOSURE; a text, that text; `false`, none.
   */
  aiDisclosure: z.union([z.literal(false), z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters')]).optional(),
  /**
   * Whom an opt-out received in a conversation of this type covers (docs/compliance.md): `address` — the
   * number or handle it came from (an SMS STOP also stops calls to the number) — or `all`, every channel of
   * the person (their contact). Absent: OPT_OUT_SCOPE (default `address`).
   */
  optOutScope: z.enum(['address', 'all'], { error: 'must be "address" or "all"' }).optional(),
  /** The team's own HTTP tools the agent may call (custom-tools.ts). */
  tools: customToolsConfig.optional(),
  /** What the agent learns about the prospect (lead-fields.ts). */
  leadFields: leadFieldsConfig.optional(),
  /** The outcomes a finished conversation is sorted into (issue 22), e.g. ["booked", "qualified", "not interested"]. */
  outcomes: z.array(z.string().trim().min(1).max(60)).min(1).max(20).optional(),
  /** What success means for this type, the rubric the outcome analysis scores a finished conversation 0–100 against. */
  successRubric: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters').optional(),
  crm: z.literal('GHL').optional(),
  /** GoHighLevel sub-account (location) id; with the bare "GHL" config, GHL_LOCATION_ID is used instead. */
  locationId: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  /**
   * GoHighLevel Private Integration token. A secret: the server stores it encrypted and answers it masked
   * (`••••` + last 4 characters); sending the masked value back keeps the stored token (docs/crm.md).
   */
  // Room for the stored, sealed form (about 4/3 of the key plus 60 characters); a pasted key is limited to
  // API_KEY_MAX by the server before it is sealed, so a stored config always reads back.
  apiKey: z.string().trim().min(1, 'must not be empty').max(4000).optional(),
  /**
   * Write-back (docs/crm.md): the GoHighLevel stage an opportunity moves to when a call from it ends so, and
   * (`booked`, issue 22) as soon as the agent books a meeting for the contact.
   */
  stageOnOutcome: z
    .strictObject(
      Object.fromEntries(STAGE_EVENTS.map((o) => [o, z.string().trim().min(1, 'must be a stage id').max(200).optional()])) as Record<
        StageEvent,
        z.ZodOptional<z.ZodString>
      >,
      { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown outcome; use ${STAGE_EVENTS.join(', ')}` : undefined) },
    )
    .optional(),
});

export const conversationTypeConfig = z.union([z.literal('GHL'), conversationTypeConfigObject]);
export type ConversationTypeConfig = z.infer<typeof conversationTypeConfigObject>;

/** The AI disclosure line of a type without `aiDisclosure` (issue 23: on by default for SMS and WhatsApp). */
export const DEFAULT_AI_DISCLOSURE = 'This is an automated AI assistant. Reply STOP to opt out.';

/** The spoken AI disclosure at the start of a call (issue 23: on by default for voice). */
export const DEFAULT_CALL_DISCLOSURE = 'You are speaking with an automated AI assistant.';
/** The recording notice at the start of a call (every call is recorded). */
export const DEFAULT_RECORDING_NOTICE = 'This call is recorded.';
/** The outcomes of a type without `outcomes` (issue 22 outcome analysis). */
export const DEFAULT_OUTCOMES = ['booked', 'qualified', 'not interested', 'no response', 'needs human'] as const;

/** The effective settings used by the agent when a field is absent. */
export const AGENT_CONFIG_DEFAULTS = {
  replyDebounceSeconds: 2,
  followUp: { delaysMinutes: [60, 1440], max: 2 },
  temperature: 0.7,
} as const;

/** Parses stored config text leniently (bad stored text means "no settings"), for readers such as the agent. */
/** What a visitor or prospect sees as the name of a chat whose type has no `publicTitle`. */
export const PUBLIC_CHAT_TITLE = 'Chat';

/** The name visitors and prospects see for a type (its config's `publicTitle`, else PUBLIC_CHAT_TITLE). */
export function publicTitleOf(configText: string | null | undefined): string {
  return readConversationTypeConfig(configText).publicTitle ?? PUBLIC_CHAT_TITLE;
}

/**
 * Config text with `publicTitle` set (a text) or removed (null), every other field kept, for the type form's
 * "Public title" field. Unchanged text when the title already is that (so a save without a change keeps the
 * config as written); the bare "GHL" config becomes {"crm": "GHL"}, which reads the same. Text that is no
 * JSON object cannot carry a title and is returned as it is.
 */
export function withPublicTitle(configText: string | null | undefined, title: string | null): string {
  const text = configText ?? '';
  if ((readConversationTypeConfig(text).publicTitle ?? null) === title) return text;
  const trimmed = text.trim();
  let config: unknown = {};
  if (trimmed === 'GHL') config = { crm: 'GHL' };
  else if (trimmed) {
    try {
      config = JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  if (config === 'GHL') config = { crm: 'GHL' };
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return text;
  const { publicTitle: _previous, ...rest } = config as Record<string, unknown>;
  return JSON.stringify(title === null ? rest : { ...rest, publicTitle: title }, null, 2);
}

export function readConversationTypeConfig(text: string | null | undefined): ConversationTypeConfig {
  const trimmed = (text ?? '').trim();
  if (!trimmed || trimmed === 'GHL') return trimmed === 'GHL' ? { crm: 'GHL' } : {};
  try {
    const parsed = conversationTypeConfig.safeParse(JSON.parse(trimmed));
    if (!parsed.success) return {};
    return parsed.data === 'GHL' ? { crm: 'GHL' } : parsed.data;
  } catch {
    return {};
  }
}

/** Spec §2.6: the contacts button appears when the type's config marks it CRM-linked (GHL). */
export function isCrmLinked(text: string | null | undefined): boolean {
  return readConversationTypeConfig(text).crm === 'GHL';
}
