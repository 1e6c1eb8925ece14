import { and, asc, count, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { readConversationTypeConfig, WEEK_DAYS } from '@sales-agent/shared/schemas/conversation-type-config';
import type { CampaignContactStatus } from '@sales-agent/shared/schemas/campaigns';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/executor.ts';
import { bookings, campaignContacts, campaignEvents, campaigns, conversations, conversationTypes } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { recordConversationEvent, recordWebhookEvent } from '../../lib/webhook-outbox.ts';
import { isOptedOut } from '../../conversations/opt-out.ts';
import { businessHoursUntil, quietHoursClock, quietNow, timeZoneOfPhone } from '../../conversations/quiet-hours.ts';
import { FINAL_CALL_STATUSES } from '../../voice/call-status.ts';
import { startLead } from '../integrations/leads.service.ts';

/**
 * The campaign scheduler (docs/campaigns.md): one `campaign.tick` job per running campaign (singletonKey
 * `campaign:<id>`, so one tick at a time on every instance). A tick settles finished calls, then starts the
 * contacts whose pacing slots have come (one, unless the tick ran late) as far as the concurrent calls allow,
 * skipping the opted-out and leaving in line those in quiet hours or outside the calling window in their own
 * zone, and answers when to run again.
 * All times come from `quietHoursClock`, so tests move one clock for quiet hours and pacing alike.
 */
export const CAMPAIGN_TICK_JOB = 'campaign.tick';
export const campaignTickKey = (campaignId: number) => `campaign:${campaignId}`;

type Campaign = typeof campaigns.$inferSelect;
type Contact = typeof campaignContacts.$inferSelect;

/** How a call's final status reads on its contact. */
const CALL_OUTCOME: Record<string, CampaignContactStatus> = {
  completed: 'answered',
  voicemail: 'voicemail',
  'no-answer': 'no_answer',
  busy: 'busy',
  failed: 'failed',
  canceled: 'failed',
};
/** The outcomes a call is tried again after, with the campaign's limit for each (docs/campaigns.md "Retries"). */
const RETRY_LIMIT: Partial<Record<CampaignContactStatus, (c: Campaign) => number>> = {
  no_answer: (c) => c.retries,
  busy: (c) => c.busyRetries,
  voicemail: (c) => c.voicemailRetries,
};
const SAID: Partial<Record<CampaignContactStatus, string>> = { no_answer: 'No answer', busy: 'Busy', voicemail: 'Voicemail (a machine answered)' };
/** A claim this old without a conversation was cut off by a crash: it is given up, never re-sent. */
export const STALE_CLAIM_MS = 2 * 60_000;
/** How often a tick looks again while calls are in progress or contacts wait. */
const POLL_MS = 2_000;
const MAX_WAIT_MS = 5 * 60_000;
/** Contacts one tick looks at before it gives way (each may be waiting for its own morning). */
const LOOK_AHEAD = 25;
/** Contacts one tick starts at most (slots a late tick catches up). */
const BATCH = 20;
/** A lag up to this is caught up (a busy machine); a longer one (a pause, a night) restarts the rhythm. */
const CATCH_UP_MS = 60_000;

/** Runs one tick of a campaign; answers ms until the next tick, or null when the campaign needs none. */
export async function runCampaignTick(ctx: AppContext, campaignId: number): Promise<number | null> {
  const [campaign] = await ctx.db.select().from(campaigns).where(eq(campaigns.id, campaignId)).limit(1);
  if (!campaign) return null;
  const now = quietHoursClock.now();
  const calling = await settleCalls(ctx, campaign, now);
  if (campaign.status !== 'running') return calling > 0 ? POLL_MS : null;
  // A scheduled start: nothing goes out before startAt (then the window and quiet hours still apply).
  if (campaign.startAt && campaign.startAt.getTime() > now.getTime()) return Math.min(MAX_WAIT_MS, campaign.startAt.getTime() - now.getTime());
  const capacity = campaign.channel === 'call' ? Math.min(BATCH, campaign.maxConcurrent - calling) : BATCH;
  if (capacity <= 0) return POLL_MS;
  const interval = 60_000 / campaign.callsPerMinute;
  const due = campaign.nextSendAt?.getTime() ?? now.getTime();
  if (due > now.getTime()) return due - now.getTime();
  // Keep the rhythm: a tick that ran late catches up the slots it missed (a batch per tick), so the average
  // pace holds on a busy machine; a lag over a minute (a pause, a night) restarts it instead of a burst.
  let slot = now.getTime() - due > CATCH_UP_MS ? now.getTime() : due;

  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, campaign.conversationTypeId)).limit(1);
  if (!type) {
    await finishCampaign(ctx, campaign, 'stopped');
    return null;
  }
  const candidates = await ctx.db
    .select()
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, 'queued'), or(isNull(campaignContacts.notBefore), lte(campaignContacts.notBefore, now))))
    .orderBy(asc(campaignContacts.id))
    .limit(LOOK_AHEAD);
  const picked: Contact[] = [];
  for (const contact of candidates) {
    if (slot > now.getTime() || picked.length >= capacity) break;
    if (await isOptedOut(ctx.db, contact.phone)) {
      await ctx.db.transaction((tx) => finishContact(tx, campaign, contact, 'opted_out', 'Opted out: not contacted.', now));
      continue;
    }
    const wait = await waitUntil(ctx, campaign, type.config, contact.phone, now);
    if (wait) {
      await ctx.db.update(campaignContacts).set({ notBefore: wait }).where(eq(campaignContacts.id, contact.id));
      continue;
    }
    if (!(await claim(ctx, campaign, contact, now, new Date(slot + interval)))) continue;
    picked.push({ ...contact, attempts: contact.attempts + 1 });
    slot += interval;
  }
  if (picked.length > 0) {
    // Claimed (and committed) first, then sent side by side: a slow send does not hold up the next slot.
    await Promise.all(picked.map((contact) => contactOne(ctx, campaign, contact, now)));
    return Math.max(0, slot - now.getTime());
  }
  if (candidates.length === LOOK_AHEAD) return 0;

  const [left] = await ctx.db
    .select({
      queued: sql<number>`count(*) filter (where ${campaignContacts.status} = 'queued')`.mapWith(Number),
      calling: sql<number>`count(*) filter (where ${campaignContacts.status} = 'calling')`.mapWith(Number),
      nextAt: sql<string | null>`min(${campaignContacts.notBefore}) filter (where ${campaignContacts.status} = 'queued')`,
    })
    .from(campaignContacts)
    .where(eq(campaignContacts.campaignId, campaign.id));
  if (left.queued === 0 && left.calling === 0) {
    await finishCampaign(ctx, campaign, 'finished');
    return null;
  }
  if (left.queued === 0 || !left.nextAt) return POLL_MS;
  return Math.min(MAX_WAIT_MS, Math.max(POLL_MS, new Date(left.nextAt).getTime() - now.getTime()));
}

/**
 * The first moment this contact may be reached, or null for now: quiet hours and the type's business hours
 * (quietNow, in the person's zone from their number), then the campaign's calling window in that same zone.
 */
async function waitUntil(ctx: AppContext, campaign: Campaign, typeConfig: string | null, phone: string, now: Date): Promise<Date | null> {
  const quiet = await quietNow(ctx.config, phone, typeConfig);
  let at = quiet?.until ?? null;
  const window = campaign.window;
  if (window) {
    const zone = (await timeZoneOfPhone(phone, now)) ?? readConversationTypeConfig(typeConfig).businessHours?.timeZone ?? ctx.config.DEFAULT_TIME_ZONE;
    const days = (window.days ?? WEEK_DAYS) as readonly string[];
    const closed = businessHoursUntil(at ?? now, { timeZone: zone, days: Object.fromEntries(days.map((d) => [d, [window.start, window.end]])) });
    if (closed) at = closed;
  }
  return at;
}

/**
 * Claims a contact (status `calling`, one more attempt) and takes the pacing slot (`next` is the one after),
 * committed BEFORE anything is sent: a process killed after this never contacts the number again. False when
 * another tick took the contact.
 */
async function claim(ctx: AppContext, campaign: Campaign, contact: Contact, now: Date, next: Date): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const rows = await tx
      .update(campaignContacts)
      // conversationId is cleared: a retry's earlier call must not settle this attempt, and a crash before
      // the new call is stored leaves a claim without a conversation, given up like any other (never twice).
      .set({ status: 'calling', attempts: sql`${campaignContacts.attempts} + 1`, claimedAt: now, notBefore: null, detail: null, conversationId: null })
      .where(and(eq(campaignContacts.id, contact.id), eq(campaignContacts.status, 'queued')))
      .returning({ id: campaignContacts.id });
    if (rows.length === 0) return false;
    await tx.update(campaigns).set({ nextSendAt: next }).where(eq(campaigns.id, campaign.id));
    return true;
  });
}

/** Starts the contact through the same path as POST /api/leads: its opening message, or a call. */
async function contactOne(ctx: AppContext, campaign: Campaign, contact: Contact, now: Date): Promise<void> {
  try {
    const { uuid } = await startLead(ctx, {
      conversationTypeId: campaign.conversationTypeId,
      phone: contact.phone,
      name: contact.name ?? undefined,
      fields: contact.fields ?? undefined,
      channel: campaign.channel === 'call' ? 'call' : 'message',
      messagingAccountId: campaign.messagingAccountId ?? undefined,
    }, { whatsappTemplate: campaign.whatsappTemplate });
    const [conversation] = await ctx.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.uuid, uuid)).limit(1);
    await ctx.db.transaction(async (tx) => {
      await tx.update(campaignContacts).set({ conversationId: conversation?.id ?? null }).where(eq(campaignContacts.id, contact.id));
      if (campaign.channel !== 'call') await finishContact(tx, campaign, { ...contact, conversationId: conversation?.id ?? null }, 'sent', null, now);
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'QUIET_HOURS') {
      // The clock moved on between the check and the send: back in line, the attempt not counted.
      await ctx.db
        .update(campaignContacts)
        .set({ status: 'queued', attempts: sql`${campaignContacts.attempts} - 1`, notBefore: new Date(now.getTime() + 15 * 60_000) })
        .where(eq(campaignContacts.id, contact.id));
      return;
    }
    const optedOut = err instanceof AppError && err.code === 'OPTED_OUT';
    if (!(err instanceof AppError)) ctx.log.warn({ err, campaignId: campaign.id, contactId: contact.id }, 'campaign contact failed');
    const reason = err instanceof AppError ? err.message : 'The contact could not be started (an unexpected error; see the server log).';
    // The refusal's code stays on the row (e.g. NO_WHATSAPP_OPT_IN), so the list can say why at a glance.
    const code = err instanceof AppError ? err.code : null;
    await ctx.db.transaction((tx) => finishContact(tx, campaign, contact, optedOut ? 'opted_out' : 'failed', optedOut ? 'Opted out: not contacted.' : reason, now, code));
  }
}

/**
 * Reads the final status of this campaign's calls (kept on their conversations by Twilio's callbacks): no
 * answer and busy go back in line after the retry delay while retries are left; the rest end the contact.
 * Claims a crash cut off are given up. Answers how many calls are still in progress.
 */
async function settleCalls(ctx: AppContext, campaign: Campaign, now: Date): Promise<number> {
  const stale = await ctx.db
    .select()
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, 'calling'), isNull(campaignContacts.conversationId), lt(campaignContacts.claimedAt, new Date(now.getTime() - STALE_CLAIM_MS))));
  for (const contact of stale) {
    const detail = 'The server stopped while contacting this number; it is not tried again, so nobody is contacted twice.';
    await ctx.db.transaction((tx) => finishContact(tx, campaign, contact, 'failed', detail, now));
  }
  if (campaign.channel !== 'call') return 0;
  const ended = await ctx.db
    .select({
      contact: campaignContacts,
      callStatus: conversations.callStatus,
      booked: sql<boolean>`exists (select 1 from ${bookings} b where b.conversation_id = ${conversations.id} and b.status <> 'cancelled')`,
    })
    .from(campaignContacts)
    .innerJoin(conversations, eq(conversations.id, campaignContacts.conversationId))
    .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, 'calling'), inArray(conversations.callStatus, FINAL_CALL_STATUSES)));
  for (const { contact, callStatus, booked } of ended) {
    const outcome = booked ? 'booked' : (CALL_OUTCOME[callStatus ?? ''] ?? 'failed');
    const limit = RETRY_LIMIT[outcome]?.(campaign) ?? -1;
    if (contact.attempts <= limit) {
      // Back in line after the delay; the tick then also waits for the window and quiet hours (waitUntil).
      const at = new Date(now.getTime() + campaign.retryDelayMinutes * 60_000);
      await ctx.db
        .update(campaignContacts)
        .set({ status: 'queued', notBefore: at, detail: `${SAID[outcome]} on attempt ${contact.attempts}; calling again after ${at.toISOString()}.` })
        .where(and(eq(campaignContacts.id, contact.id), eq(campaignContacts.status, 'calling')));
      continue;
    }
    await ctx.db.transaction((tx) => finishContact(tx, campaign, contact, outcome, null, now));
  }
  const [{ n }] = await ctx.db
    .select({ n: count() })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), eq(campaignContacts.status, 'calling')));
  return n;
}

/**
 * A contact reaches its final status, with the `campaign.contact_finished` webhook event in the same
 * transaction (in the conversation's lane when there is one). A contact already final is left alone.
 */
export async function finishContact(
  tx: Executor,
  campaign: Campaign,
  contact: Contact,
  status: CampaignContactStatus,
  detail: string | null,
  now: Date,
  code: string | null = null,
): Promise<void> {
  const rows = await tx
    .update(campaignContacts)
    .set({ status, detail, code: code ?? (status === 'opted_out' ? 'OPTED_OUT' : null), finishedAt: now })
    .where(and(eq(campaignContacts.id, contact.id), inArray(campaignContacts.status, ['queued', 'calling'])))
    .returning({ conversationId: campaignContacts.conversationId, attempts: campaignContacts.attempts });
  if (rows.length === 0) return;
  const extra = {
    campaign: { id: campaign.id, name: campaign.name, channel: campaign.channel },
    contact: { phone: contact.phone, name: contact.name, fields: contact.fields ?? {}, status, attempts: rows[0].attempts, detail },
  };
  const conversationId = rows[0].conversationId;
  if (conversationId !== null) await recordConversationEvent(tx, 'campaign.contact_finished', conversationId, extra);
  else await recordWebhookEvent(tx, 'campaign.contact_finished', `campaign:${campaign.id}`, { ...extra, conversation: null });
}

async function finishCampaign(ctx: AppContext, campaign: Campaign, status: 'finished' | 'stopped'): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .update(campaigns)
      .set({ status, finishedAt: new Date() })
      .where(and(eq(campaigns.id, campaign.id), eq(campaigns.status, 'running')))
      .returning({ id: campaigns.id });
    if (rows.length > 0) await tx.insert(campaignEvents).values({ campaignId: campaign.id, kind: status, userId: null });
  });
}
