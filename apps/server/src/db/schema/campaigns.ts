import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestampTz } from './columns.ts';
import { conversations } from './conversations.ts';
import { conversationTypes } from './playbooks.ts';
import { users } from './users.ts';

/** A calling window in the callee's local time (docs/campaigns.md): "HH:MM" each, days mon…sun (unset: every day). */
export interface CampaignWindow {
  start: string;
  end: string;
  days?: string[];
}

/**
 * An outbound campaign (issue 23 item 4, docs/campaigns.md): a list of numbers contacted one by one on a
 * conversation type's channel, paced, inside a calling window, by the `campaign.tick` job. `nextSendAt` is the
 * pacing slot: the earliest moment the next contact may be started.
 */
export const campaigns = pgTable('campaigns', {
  id: serial().primaryKey(),
  name: text().notNull(),
  conversationTypeId: integer()
    .notNull()
    .references(() => conversationTypes.id, { onDelete: 'cascade' }),
  /** call, sms or whatsapp. */
  channel: text().notNull(),
  /** The SMS / WhatsApp account to write from (null: the type's). */
  messagingAccountId: integer(),
  /** draft, running, paused, stopped, finished. */
  status: text().notNull().default('draft'),
  callsPerMinute: integer().notNull(),
  /** Calls in progress at once at most (calls only). */
  maxConcurrent: integer().notNull(),
  window: jsonb().$type<CampaignWindow | null>(),
  /**
   * Retries (docs/campaigns.md "Retries"): a contact whose last attempt ended with no answer / busy / a machine
   * (voicemail) is called again while its attempts so far are at most `retries` / `busyRetries` /
   * `voicemailRetries`, each time after `retryDelayMinutes` (and inside the window).
   */
  retries: integer().notNull(),
  busyRetries: integer().notNull().default(0),
  voicemailRetries: integer().notNull().default(0),
  retryDelayMinutes: integer().notNull(),
  /** Left on an answering machine (TwiML <Say>) instead of the type's voice.voicemailMessage. */
  voicemailMessage: text(),
  /** The first contact waits until then (a scheduled start); null: at once. */
  startAt: timestampTz(),
  /** WhatsApp: the approved template the opening message goes as. */
  whatsappTemplate: jsonb().$type<{ name: string; language: string; components?: unknown[] } | null>(),
  /** Where the contacts came from: `{ghlPipelineStageId}` for a GoHighLevel stage; null for a list/CSV. */
  audience: jsonb().$type<{ ghlPipelineStageId: string } | null>(),
  nextSendAt: timestamp({ withTimezone: true }),
  createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  startedAt: timestamp({ withTimezone: true }),
  finishedAt: timestamp({ withTimezone: true }),
});

/**
 * One number of a campaign. Unique per campaign and phone: a number is never in a campaign twice. The row is
 * claimed (status `calling`, attempts + 1) and committed BEFORE the message or call goes out, so a process
 * killed mid-send never sends it again (at most once; such a claim without a conversation turns `failed`).
 */
export const campaignContacts = pgTable(
  'campaign_contacts',
  {
    id: serial().primaryKey(),
    campaignId: integer()
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    phone: text().notNull(),
    name: text(),
    fields: jsonb().$type<Record<string, string>>(),
    /** queued, calling, answered, voicemail, no_answer, busy, sent, booked, failed, opted_out. */
    status: text().notNull().default('queued'),
    attempts: integer().notNull().default(0),
    /** Not before (quiet hours, window, retry delay). */
    notBefore: timestamp({ withTimezone: true }),
    claimedAt: timestamp({ withTimezone: true }),
    conversationId: integer().references(() => conversations.id, { onDelete: 'set null' }),
    detail: text(),
    /** The error code of a contact that was refused (e.g. NO_WHATSAPP_OPT_IN, OPTED_OUT). */
    code: text(),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('campaign_contacts_campaign_phone_idx').on(t.campaignId, t.phone),
    index('campaign_contacts_queued_idx').on(t.campaignId, t.id).where(sql`status = 'queued'`),
    index('campaign_contacts_calling_idx').on(t.campaignId).where(sql`status = 'calling'`),
    // The answering-machine callback finds a call's campaign by its conversation.
    index('campaign_contacts_conversation_idx').on(t.conversationId),
  ],
);

/** Audit of campaign starts, pauses, resumes and stops (who, when, what). */
export const campaignEvents = pgTable(
  'campaign_events',
  {
    id: serial().primaryKey(),
    campaignId: integer()
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    /** created, started, paused, resumed, stopped, finished. */
    kind: text().notNull(),
    userId: integer().references(() => users.id, { onDelete: 'set null' }),
    at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index().on(t.campaignId)],
);
