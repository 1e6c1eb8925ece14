import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import Papa from 'papaparse';
import type { CampaignCreateBody, CampaignDetail, CampaignRetryPolicy, CampaignSummary } from '@sales-agent/shared/schemas/campaigns';
import { campaignCreateBody } from '@sales-agent/shared/schemas/campaigns';
import type { Actor, AppContext } from '../../context.ts';
import { campaignContacts, campaignEvents, campaigns, conversations, conversationTypes, messagingAccounts, users } from '../../db/schema/index.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { findAccountById } from '../../channels/accounts.ts';
import { outsideWindowTemplate } from '../../channels/windows.ts';
import { contactsOfGhlStage } from './campaign-audience.ts';
import { normaliseContacts, parseContactsCsv, type SkippedRow } from './campaign-contacts.ts';
import { CAMPAIGN_TICK_JOB, campaignTickKey } from './campaign-tick.ts';

type Campaign = typeof campaigns.$inferSelect;
const unavailable = (message: string) => new AppError(400, 'CAMPAIGN_CHANNEL_UNAVAILABLE', message);
const INSERT_CHUNK = 1000;
/** Cells a spreadsheet would run as a formula (Papa's default list), but not a phone number such as +14155550123. */
const SPREADSHEET_FORMULA = /^(?![+-]\d+$)[=+\-@\t\r]/;

/** POST /api/admin/campaigns: a draft campaign with its contacts (from the list and/or the CSV). */
export async function createCampaign(ctx: AppContext, actor: Actor, input: CampaignCreateBody): Promise<{ id: number; contacts: number; skipped: SkippedRow[] }> {
  const body = campaignCreateBody.parse(input);
  const [type] = await ctx.db.select().from(conversationTypes).where(eq(conversationTypes.id, body.conversationTypeId)).limit(1);
  if (!type) throw notFound('Conversation type not found', 'CONVERSATION_TYPE_NOT_FOUND');
  const messagingAccountId = await checkChannel(ctx, type, body.channel, body.messagingAccountId);
  if (body.channel === 'whatsapp') await checkTemplate(ctx, messagingAccountId, body.whatsappTemplate);
  const raw = [
    ...(body.contacts ?? []).map((c) => ({ ...c, fields: c.fields ?? undefined })),
    ...(body.csv?.trim() ? parseContactsCsv(body.csv) : []),
    ...(body.audience ? await contactsOfGhlStage(ctx, type.config, body.audience.ghlPipelineStageId) : []),
  ];
  const { rows, skipped } = normaliseContacts(raw);
  if (rows.length === 0) throw new AppError(400, 'CAMPAIGN_CSV_INVALID', 'None of the contacts has a phone number in international format (e.g. +14155550123).');
  const retries = retryPolicyOf(body.retries, body.retryDelayMinutes);
  const id = await ctx.db.transaction(async (tx) => {
    const [campaign] = await tx
      .insert(campaigns)
      .values({
        name: body.name,
        conversationTypeId: type.id,
        channel: body.channel,
        messagingAccountId,
        callsPerMinute: body.callsPerMinute,
        maxConcurrent: body.maxConcurrent,
        window: body.window ?? null,
        retries: retries.noAnswer,
        busyRetries: retries.busy,
        voicemailRetries: retries.voicemail,
        retryDelayMinutes: retries.delayMinutes,
        voicemailMessage: body.voicemailMessage || null,
        startAt: body.startAt ? new Date(body.startAt) : null,
        whatsappTemplate: body.channel === 'whatsapp' ? (body.whatsappTemplate ?? null) : null,
        audience: body.audience ?? null,
        createdBy: actor.id,
      })
      .returning({ id: campaigns.id });
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await tx
        .insert(campaignContacts)
        .values(rows.slice(i, i + INSERT_CHUNK).map((row) => ({ campaignId: campaign.id, ...row })))
        .onConflictDoNothing();
    }
    await tx.insert(campaignEvents).values({ campaignId: campaign.id, kind: 'created', userId: actor.id });
    return campaign.id;
  });
  return { id, contacts: rows.length, skipped };
}

/** `retries` as a number (the older form: no answer and busy alike, no voicemail retries) or per outcome. */
function retryPolicyOf(retries: number | { noAnswer: number; busy: number; voicemail: number; delayMinutes?: number }, delayMinutes: number): CampaignRetryPolicy {
  if (typeof retries === 'number') return { noAnswer: retries, busy: retries, voicemail: 0, delayMinutes };
  return { noAnswer: retries.noAnswer, busy: retries.busy, voicemail: retries.voicemail, delayMinutes: retries.delayMinutes ?? delayMinutes };
}

/**
 * A WhatsApp campaign starts conversations, which WhatsApp allows only as an approved template: the campaign's
 * `whatsappTemplate`, else the account's `config.templates.outsideWindow`. 400 when there is neither.
 */
async function checkTemplate(ctx: AppContext, accountId: number | null, template: CampaignCreateBody['whatsappTemplate']): Promise<void> {
  if (template || accountId === null) return;
  const account = await findAccountById(ctx, accountId);
  if (account && outsideWindowTemplate(account.config)) return;
  throw unavailable('A WhatsApp campaign opens each conversation with an approved template: give whatsappTemplate {name, language}, or set config.templates.outsideWindow on the account.');
}

/**
 * The channel must be usable before a single contact is queued: a Twilio account on the type for calls; for
 * SMS / WhatsApp an account of that kind and an opening message. Answers the account to write from.
 */
async function checkChannel(ctx: AppContext, type: typeof conversationTypes.$inferSelect, channel: string, requested: number | undefined): Promise<number | null> {
  if (channel === 'call') {
    const [account] = type.messagingAccountId === null ? [] : await ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, type.messagingAccountId));
    if (account?.type !== 'TWILIO') throw unavailable('This conversation type has no Twilio account to call from. Choose a Twilio account on the type first.');
    return null;
  }
  if (!type.initialMessage?.trim()) throw unavailable('This conversation type has no initial message to open the conversation with. Add one to the type first.');
  const kinds: (typeof messagingAccounts.$inferSelect)['type'][] = channel === 'whatsapp' ? ['WHATSAPP'] : ['TWILIO', 'SMS_GATEWAY'];
  const candidates = requested
    ? await ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, requested))
    : await ctx.db
        .select()
        .from(messagingAccounts)
        .where(and(inArray(messagingAccounts.type, kinds), sql`(${messagingAccounts.id} = ${type.messagingAccountId ?? -1} or ${messagingAccounts.conversationTypeId} = ${type.id})`))
        .orderBy(sql`${messagingAccounts.id} = ${type.messagingAccountId ?? -1} desc`, asc(messagingAccounts.id));
  const account = candidates.find((a) => kinds.includes(a.type));
  if (!account) throw unavailable(`This conversation type has no ${channel === 'whatsapp' ? 'WhatsApp' : 'SMS'} account to write from. Choose one on the type, or pass messagingAccountId.`);
  return account.id;
}

const ACTIONS = {
  start: { from: ['draft', 'paused'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  stop: { from: ['draft', 'running', 'paused'], to: 'stopped' },
} as const;
export type CampaignAction = keyof typeof ACTIONS;

/**
 * POST /api/admin/campaigns/{id}/start|pause|stop. Starting (or resuming) queues the campaign's tick in the
 * same transaction; every change is kept in the campaign's audit (who, when). Calls in progress when a
 * campaign is paused or stopped end normally and are still recorded.
 */
export async function changeCampaign(ctx: AppContext, actor: Actor, id: number, action: CampaignAction): Promise<CampaignSummary> {
  const rule = ACTIONS[action];
  await ctx.db.transaction(async (tx) => {
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, id)).for('update');
    if (!campaign) throw campaignNotFound();
    if (!(rule.from as readonly string[]).includes(campaign.status)) {
      throw conflict(`This campaign is ${campaign.status}; it cannot be ${action === 'stop' ? 'stopped' : action === 'pause' ? 'paused' : 'started'} now.`, 'CAMPAIGN_STATE');
    }
    const kind = action === 'start' ? (campaign.status === 'paused' ? 'resumed' : 'started') : action === 'pause' ? 'paused' : 'stopped';
    await tx
      .update(campaigns)
      .set({ status: rule.to, ...(kind === 'started' ? { startedAt: new Date() } : {}), ...(action === 'stop' ? { finishedAt: new Date() } : {}) })
      .where(eq(campaigns.id, id));
    await tx.insert(campaignEvents).values({ campaignId: id, kind, userId: actor.id });
    if (rule.to === 'running') await ctx.jobs.enqueue(CAMPAIGN_TICK_JOB, { campaignId: id }, { singletonKey: campaignTickKey(id), replace: true, executor: tx });
  });
  return (await summaries(ctx, id))[0];
}

const campaignNotFound = () => notFound('Campaign not found', 'CAMPAIGN_NOT_FOUND');
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Every campaign (newest first) with its counts, or the one asked for. */
export async function summaries(ctx: AppContext, id?: number): Promise<CampaignSummary[]> {
  const rows = await ctx.db
    .select()
    .from(campaigns)
    .where(id === undefined ? undefined : eq(campaigns.id, id))
    .orderBy(desc(campaigns.id));
  if (id !== undefined && rows.length === 0) throw campaignNotFound();
  const tallies = await ctx.db
    .select({ campaignId: campaignContacts.campaignId, status: campaignContacts.status, n: sql<number>`count(*)`.mapWith(Number) })
    .from(campaignContacts)
    .where(id === undefined ? undefined : eq(campaignContacts.campaignId, id))
    .groupBy(campaignContacts.campaignId, campaignContacts.status);
  return rows.map((c) => summaryOf(c, tallies.filter((t) => t.campaignId === c.id)));
}

function summaryOf(c: Campaign, tallies: { status: string; n: number }[]): CampaignSummary {
  const of = (...statuses: string[]) => tallies.filter((t) => statuses.includes(t.status)).reduce((sum, t) => sum + t.n, 0);
  return {
    id: c.id,
    name: c.name,
    conversationTypeId: c.conversationTypeId,
    channel: c.channel as CampaignSummary['channel'],
    status: c.status as CampaignSummary['status'],
    callsPerMinute: c.callsPerMinute,
    maxConcurrent: c.maxConcurrent,
    window: (c.window ?? null) as CampaignSummary['window'],
    retries: c.retries,
    retryDelayMinutes: c.retryDelayMinutes,
    retryPolicy: { noAnswer: c.retries, busy: c.busyRetries, voicemail: c.voicemailRetries, delayMinutes: c.retryDelayMinutes },
    voicemailMessage: c.voicemailMessage,
    startAt: iso(c.startAt),
    whatsappTemplate: c.whatsappTemplate ? { name: c.whatsappTemplate.name, language: c.whatsappTemplate.language } : null,
    audience: c.audience ?? null,
    createdAt: c.createdAt.toISOString(),
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    counts: {
      total: of(...tallies.map((t) => t.status)),
      queued: of('queued'),
      calling: of('calling'),
      done: of('answered', 'voicemail', 'sent', 'booked'),
      failed: of('failed', 'no_answer', 'busy'),
      optedOut: of('opted_out'),
      answered: of('answered'),
      voicemail: of('voicemail'),
      noAnswer: of('no_answer'),
      busy: of('busy'),
      sent: of('sent'),
      booked: of('booked'),
    },
  };
}

/** The contacts of a campaign in list order, each with its conversation's uuid. */
async function contactsOf(ctx: AppContext, id: number) {
  return ctx.db
    .select({
      phone: campaignContacts.phone,
      name: campaignContacts.name,
      fields: campaignContacts.fields,
      status: campaignContacts.status,
      attempts: campaignContacts.attempts,
      conversationUuid: conversations.uuid,
      detail: campaignContacts.detail,
      code: campaignContacts.code,
      finishedAt: campaignContacts.finishedAt,
    })
    .from(campaignContacts)
    .leftJoin(conversations, eq(conversations.id, campaignContacts.conversationId))
    .where(eq(campaignContacts.campaignId, id))
    .orderBy(asc(campaignContacts.id));
}

/** GET /api/admin/campaigns/{id}: the summary, every contact with its status and conversation, and the audit. */
export async function campaignDetail(ctx: AppContext, id: number): Promise<CampaignDetail> {
  const [summary] = await summaries(ctx, id);
  const contacts = await contactsOf(ctx, id);
  const events = await ctx.db
    .select({ kind: campaignEvents.kind, at: campaignEvents.at, by: users.email })
    .from(campaignEvents)
    .leftJoin(users, eq(users.id, campaignEvents.userId))
    .where(eq(campaignEvents.campaignId, id))
    .orderBy(asc(campaignEvents.id));
  return {
    ...summary,
    contacts: contacts.map(({ fields: _fields, ...c }) => ({ ...c, status: c.status as CampaignDetail['contacts'][number]['status'], finishedAt: iso(c.finishedAt) })),
    events: events.map((e) => ({ kind: e.kind, at: e.at.toISOString(), by: e.by })),
  };
}

/** GET /api/admin/campaigns/{id}/export: one CSV row per contact (its fields as columns) with its result. */
export async function exportCampaign(ctx: AppContext, id: number): Promise<{ name: string; csv: string }> {
  const [summary] = await summaries(ctx, id);
  const contacts = await contactsOf(ctx, id);
  const fieldNames = [...new Set(contacts.flatMap((c) => Object.keys(c.fields ?? {})))];
  const columns = ['phone', 'name', ...fieldNames.filter((f) => !['phone', 'name'].includes(f)), 'status', 'attempts', 'conversation_uuid', 'detail', 'finished_at'];
  const data = contacts.map((c) => [
    c.phone,
    c.name ?? '',
    ...columns.slice(2, 2 + columns.length - 7).map((f) => c.fields?.[f] ?? ''),
    c.status,
    c.attempts,
    c.conversationUuid ?? '',
    c.detail ?? '',
    iso(c.finishedAt) ?? '',
  ]);
  return { name: summary.name, csv: Papa.unparse({ fields: columns, data }, { escapeFormulae: SPREADSHEET_FORMULA }) };
}
