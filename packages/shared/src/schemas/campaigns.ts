import { z } from 'zod';
import { clockTime, WEEK_DAYS } from './conversation-type-config.ts';

/** Outbound campaigns (issue 23 item 4, docs/campaigns.md). */
export const CAMPAIGN_CHANNELS = ['call', 'sms', 'whatsapp'] as const;
export const CAMPAIGN_STATUSES = ['draft', 'running', 'paused', 'stopped', 'finished'] as const;
/** A contact's status; `queued` and `calling` are not final, every other one is. */
export const CAMPAIGN_CONTACT_STATUSES = ['queued', 'calling', 'answered', 'voicemail', 'no_answer', 'busy', 'sent', 'booked', 'failed', 'opted_out'] as const;
export type CampaignContactStatus = (typeof CAMPAIGN_CONTACT_STATUSES)[number];
/** Most contacts one campaign holds. */
export const CAMPAIGN_MAX_CONTACTS = 20_000;

export const campaignWindow = z
  .strictObject({
    start: clockTime,
    end: clockTime,
    days: z.array(z.enum(WEEK_DAYS, { error: `must be one of ${WEEK_DAYS.join(', ')}` })).min(1).optional(),
  })
  .refine((w) => w.start < w.end, 'the window must start before it ends, e.g. {"start": "09:00", "end": "18:00"}');

const fieldValue = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);
export const campaignContactInput = z.object({
  phone: z.string().trim().min(1).max(40),
  name: z.string().trim().max(200).optional(),
  fields: z.record(z.string().max(100), fieldValue).optional(),
});

const retryCount = z.number().int().min(0).max(5);
const retryDelay = z.number().int().min(1).max(7 * 24 * 60);
/**
 * Retries per outcome of a call (docs/campaigns.md "Retries"): extra attempts after no answer, busy, or an
 * answering machine (voicemail), each after `delayMinutes`. A plain number is the older form: that many after
 * no answer and after busy, none after voicemail.
 */
export const campaignRetries = z.strictObject({
  noAnswer: retryCount.default(1),
  busy: retryCount.default(1),
  voicemail: retryCount.default(0),
  delayMinutes: retryDelay.optional(),
});
export type CampaignRetryPolicy = { noAnswer: number; busy: number; voicemail: number; delayMinutes: number };

/** A WhatsApp template approved in the business account: its name and language code (e.g. en_US). */
export const campaignWhatsAppTemplate = z.strictObject({
  name: z.string().trim().min(1).max(512),
  language: z.string().trim().min(2).max(15),
  components: z.array(z.unknown()).max(20).optional(),
});

/** The audience from a GoHighLevel pipeline stage: its opportunities' contacts (with a phone). */
export const campaignAudience = z.strictObject({ ghlPipelineStageId: z.string().trim().min(1).max(100) });

/**
 * POST /api/admin/campaigns: `contacts` as JSON, or `csv` (a header row with `phone`, optional `name`, any other
 * column becomes a field), or `audience` (a GoHighLevel pipeline stage); at least one of them.
 */
export const campaignCreateBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    conversationTypeId: z.number().int().positive().max(2_147_483_647),
    channel: z.enum(CAMPAIGN_CHANNELS),
    contacts: z.array(campaignContactInput).max(CAMPAIGN_MAX_CONTACTS).optional(),
    csv: z.string().max(5_000_000).optional(),
    callsPerMinute: z.number().int().min(1).max(600).default(10),
    maxConcurrent: z.number().int().min(1).max(100).default(5),
    window: campaignWindow.nullable().optional(),
    retries: z.union([retryCount, campaignRetries]).default(1),
    retryDelayMinutes: retryDelay.default(60),
    voicemailMessage: z.string().trim().max(1000).optional(),
    startAt: z.iso.datetime({ offset: true, error: 'must be an ISO date and time, e.g. 2030-01-16T09:00:00-05:00' }).optional(),
    whatsappTemplate: campaignWhatsAppTemplate.optional(),
    audience: campaignAudience.optional(),
    messagingAccountId: z.number().int().positive().max(2_147_483_647).optional(),
  })
  .refine((b) => (b.contacts?.length ?? 0) > 0 || (b.csv ?? '').trim() !== '' || b.audience !== undefined, {
    message: 'Give the contacts: a list, a CSV with a "phone" column, or a GoHighLevel pipeline stage as the audience.',
    path: ['contacts'],
  });
export type CampaignCreateBody = z.input<typeof campaignCreateBody>;

export const campaignCreated = z.object({ id: z.number(), contacts: z.number(), skipped: z.array(z.object({ row: z.number(), phone: z.string(), reason: z.string() })) });

const counts = z.object({
  total: z.number(),
  queued: z.number(),
  calling: z.number(),
  done: z.number(),
  failed: z.number(),
  optedOut: z.number(),
  answered: z.number(),
  voicemail: z.number(),
  noAnswer: z.number(),
  busy: z.number(),
  sent: z.number(),
  booked: z.number(),
});

export const campaignSummary = z.object({
  id: z.number(),
  name: z.string(),
  conversationTypeId: z.number(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  status: z.enum(CAMPAIGN_STATUSES),
  callsPerMinute: z.number(),
  maxConcurrent: z.number(),
  window: campaignWindow.nullable(),
  /** Retries after no answer (the older single number; see retryPolicy). */
  retries: z.number(),
  retryDelayMinutes: z.number(),
  retryPolicy: z.object({ noAnswer: z.number(), busy: z.number(), voicemail: z.number(), delayMinutes: z.number() }),
  voicemailMessage: z.string().nullable(),
  startAt: z.string().nullable(),
  whatsappTemplate: z.object({ name: z.string(), language: z.string() }).nullable(),
  audience: campaignAudience.nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  counts,
});
export type CampaignSummary = z.infer<typeof campaignSummary>;

export const campaignContactView = z.object({
  phone: z.string(),
  name: z.string().nullable(),
  status: z.enum(CAMPAIGN_CONTACT_STATUSES),
  attempts: z.number(),
  conversationUuid: z.string().nullable(),
  detail: z.string().nullable(),
  /** Why a contact was refused, as an error code (e.g. NO_WHATSAPP_OPT_IN); null otherwise. */
  code: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type CampaignContactView = z.infer<typeof campaignContactView>;

export const campaignDetail = campaignSummary.extend({
  contacts: z.array(campaignContactView),
  events: z.array(z.object({ kind: z.string(), at: z.string(), by: z.string().nullable() })),
});
export type CampaignDetail = z.infer<typeof campaignDetail>;
