import { DELIVER_JOB } from '../channels/delivery-keys.ts';
import { createHmac } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import twilio from 'twilio';
import type { AppContext } from '../context.ts';
import { conversations, jobs, messages, messagingAccounts, outbox, prospects, unansweredConversations } from '../db/schema/index.ts';
import type { TestApp } from './build-test-app.ts';
import type { ChannelType } from '../channels/types.ts';

/** Test helpers of the channel tests: accounts, signed provider requests, and reading what happened. */

export const META_APP_SECRET = 'meta-app-secret';
export const META_VERIFY_TOKEN = 'verify-me-please';
export const META_APP_ID = '111222333';
export const PUBLIC_URL = 'http://localhost:3000';
/** The env every channel test server starts with: the Meta app and the public address providers sign for. */
export const CHANNEL_ENV = { META_APP_SECRET, META_VERIFY_TOKEN, META_APP_ID, PUBLIC_URL };

let sequence = 0;

/**
 * An SMS gateway account pointing at the gateway fake at `baseUrl`: Basic `login:password` for sending, and
 * webhooks signed with `signingKey`.
 */
export function buildSmsGatewayAccount(
  ctx: AppContext,
  gateway: { baseUrl: string; login: string; password: string; signingKey: string },
  conversationTypeId: number,
) {
  return buildChannelAccount(ctx, {
    type: 'SMS_GATEWAY',
    token: `${gateway.login}:${gateway.password}`,
    config: { baseUrl: gateway.baseUrl, signingKey: gateway.signingKey },
    conversationTypeId,
  });
}

export async function buildChannelAccount(
  ctx: AppContext,
  seed: { type: ChannelType; pageId?: string; token?: string; config?: Record<string, unknown>; conversationTypeId?: number | null },
) {
  sequence += 1;
  const [account] = await ctx.db
    .insert(messagingAccounts)
    .values({
      type: seed.type,
      pageId: seed.pageId ?? `${seed.type.toLowerCase()}-${sequence}`,
      pageName: `${seed.type} account ${sequence}`,
      accessTokenEncrypted: ctx.secrets.seal(seed.token ?? `token-${sequence}`),
      config: JSON.stringify(seed.config ?? {}),
      conversationTypeId: seed.conversationTypeId ?? null,
    })
    // (type, pageId) is unique: a test that names a page id used before gets that account with the new
    // token and config, as connecting the same page again does.
    .onConflictDoUpdate({
      target: [messagingAccounts.type, messagingAccounts.pageId],
      set: {
        pageName: sql`excluded.page_name`,
        accessTokenEncrypted: sql`excluded.access_token_encrypted`,
        config: sql`excluded.config`,
        conversationTypeId: sql`excluded.conversation_type_id`,
        tokenRejectedAt: null,
      },
    })
    .returning();
  return account;
}

/** A Meta messaging item (Instagram / Messenger) from a prospect to the account. */
export function metaMessagePayload(object: 'instagram' | 'page', pageId: string, senderId: string, mid: string, text: string, timestamp = Date.now()) {
  return {
    object,
    entry: [{ id: pageId, time: timestamp, messaging: [{ sender: { id: senderId }, recipient: { id: pageId }, timestamp, message: { mid, text } }] }],
  };
}

/** A Meta echo: a message the account itself sent (ours, or a person's from Meta's inbox when `appId` is not ours). */
export function metaEchoPayload(object: 'instagram' | 'page', pageId: string, recipientId: string, mid: string, text: string, appId?: string) {
  const timestamp = Date.now();
  return {
    object,
    entry: [
      {
        id: pageId,
        time: timestamp,
        messaging: [{ sender: { id: pageId }, recipient: { id: recipientId }, timestamp, message: { mid, text, is_echo: true, ...(appId ? { app_id: Number(appId) } : {}) } }],
      },
    ],
  };
}

/**
 * A WhatsApp Cloud `messages` change with any contacts and message objects (WhatsApp Cloud API, Webhooks
 * reference, "messages" field; the username fields from Meta's "business-scoped user IDs" guide, 2026).
 */
export function whatsAppWebhook(phoneNumberId: string, contacts: unknown[], items: unknown[]) {
  return whatsAppChange({
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
    contacts,
    messages: items,
  });
}

/** The WhatsApp Cloud webhook envelope around one `messages` change's `value` (contacts, messages, statuses …). */
export function whatsAppChange(value: Record<string, unknown>, wabaId = 'WABA-1') {
  return { object: 'whatsapp_business_account', entry: [{ id: wabaId, changes: [{ field: 'messages', value }] }] };
}

/** A WhatsApp Cloud text message from `from`. */
export function whatsAppPayload(phoneNumberId: string, from: string, wamid: string, text: string, name = 'Ana', sentAt = Date.now()) {
  return whatsAppWebhook(
    phoneNumberId,
    [{ profile: { name }, wa_id: from }],
    [{ from, id: wamid, timestamp: String(Math.floor(sentAt / 1000)), type: 'text', text: { body: text } }],
  );
}

/** Posts a Meta webhook signed as Meta does (over the exact bytes sent). */
export function postMeta(t: TestApp, payload: unknown, secret = META_APP_SECRET) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return t.request({ method: 'POST', url: '/api/meta-api/webhook', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: body });
}

/** Posts a Twilio webhook form to `path`, signed with the Auth Token over PUBLIC_URL + path + sorted params. */
function postTwilioForm(t: TestApp, path: string, params: Record<string, string>, signatureFor: string) {
  const signature = twilio.getExpectedTwilioSignature(signatureFor, `${PUBLIC_URL}${path}`, params);
  return t.request({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(params).toString(),
  });
}

/** Posts Twilio's inbound SMS form, signed as Twilio does (with `signatureFor`, a wrong token on purpose). */
export function postTwilioSms(t: TestApp, authToken: string, params: Record<string, string>, signatureFor = authToken) {
  return postTwilioForm(t, '/api/twilio/sms', params, signatureFor);
}

/** Posts a Twilio status callback for one of our SMS (form MessageSid, MessageStatus, ErrorCode?, From = our number). */
export function postTwilioStatus(t: TestApp, authToken: string, params: Record<string, string>, signatureFor = authToken) {
  return postTwilioForm(t, '/api/twilio/sms-status', params, signatureFor);
}

/**
 * The gateway's report on a message we sent, as it sends it today (docs-web features/webhooks.md): `messageId` is
 * the id our send was answered with, `sender` our SIM's number, `recipient` the prospect.
 */
export function smsGatewayReport(deviceId: string, event: 'sms:sent' | 'sms:delivered' | 'sms:failed', id: string, messageId: string, recipient: string, extra: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  const when = event === 'sms:sent' ? { sentAt: at, partsCount: 1 } : event === 'sms:delivered' ? { deliveredAt: at } : { failedAt: at };
  return { deviceId, event, id, webhookId: 'wh-2', payload: { messageId, sender: '+34600000999', recipient, simNumber: 1, ...when, ...extra } };
}

/** A Messenger `delivery` / `read` item or an Instagram `read` (messaging_seen) from the prospect. */
export function metaReceipt(object: 'instagram' | 'page', pageId: string, prospectId: string, receipt: { delivery: unknown } | { read: unknown }) {
  const timestamp = Date.now();
  return { object, entry: [{ id: pageId, time: timestamp, messaging: [{ sender: { id: prospectId }, recipient: { id: pageId }, timestamp, ...receipt }] }] };
}

/**
 * An `sms:received` event as the gateway sends it today (android-sms-gateway docs, features/webhooks, and the
 * server's webhook payload since 2026-02-17): `sender` is the prospect, `recipient` our SIM's number; `format:
 * 'old'` gives the deprecated `phoneNumber` instead. `messageId` is a content hash there (not unique).
 */
export function smsGatewayEvent(deviceId: string, sender: string, id: string, message: string, options: { format?: 'new' | 'old'; messageId?: string } = {}) {
  const who = options.format === 'old' ? { phoneNumber: sender } : { sender, recipient: '+34600000999' };
  return {
    deviceId,
    event: 'sms:received',
    id,
    webhookId: 'wh-1',
    payload: { messageId: options.messageId ?? 'a1b2c3d4', message, ...who, simNumber: 1, receivedAt: new Date().toISOString() },
  };
}

/** Posts an SMS Gateway event signed with hex HMAC-SHA256(key, body + X-Timestamp). */
export function postSmsGateway(t: TestApp, signingKey: string, event: unknown, timestamp = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify(event);
  const signature = createHmac('sha256', signingKey).update(body + String(timestamp)).digest('hex');
  return t.request({
    method: 'POST',
    url: '/api/sms-gateway/webhook',
    headers: { 'content-type': 'application/json', 'x-timestamp': String(timestamp), 'x-signature': signature },
    payload: body,
  });
}

/** The conversation of a prospect (account, external id), with its messages oldest first. */
export async function conversationOfProspect(ctx: AppContext, accountId: number, externalId: string) {
  const [prospect] = await ctx.db.select().from(prospects).where(sql`${prospects.messagingAccountId} = ${accountId} and ${prospects.externalId} = ${externalId}`);
  if (!prospect) return null;
  const [conversation] = await ctx.db.select().from(conversations).where(eq(conversations.prospectId, prospect.id)).orderBy(sql`${conversations.id} desc`).limit(1);
  const stored = await ctx.db
    .select({ role: messages.role, message: messages.message, writtenByHuman: messages.writtenByHuman })
    .from(messages)
    .where(eq(messages.conversationId, conversation.id))
    .orderBy(messages.id);
  const sends = await ctx.db.select().from(outbox).where(eq(outbox.conversationId, conversation.id)).orderBy(outbox.id);
  return { prospect, conversation, messages: stored, outbox: sends };
}

export async function countRows(ctx: AppContext, table: 'webhook_inbox' | 'messages' | 'prospects' | 'conversations') {
  const result = await ctx.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
  return Number((result as unknown as { rows: { n: number }[] }).rows[0].n);
}

/** Makes every waiting job (or those of one job name) due now: a retry's backoff has "passed". */
export async function makeJobsDue(ctx: AppContext, name?: string) {
  await ctx.db
    .update(jobs)
    .set({ runAt: new Date(Date.now() - 1000) })
    .where(name ? sql`${jobs.status} = 'pending' and ${jobs.name} = ${name}` : eq(jobs.status, 'pending'));
}

/**
 * Makes every waiting delivery due and runs it, until no delivery job waits. A row that decided to wait behind
 * its predecessor at the very moment that one finished misses the wake-up and is re-run a little later
 * (deliver.job.ts bounds that delay); under load that can happen in a test, so one pass is not always enough.
 */
export async function deliverWaiting(ctx: AppContext): Promise<void> {
  for (let pass = 0; pass < 10; pass += 1) {
    await makeJobsDue(ctx, DELIVER_JOB);
    await settle(ctx);
    const result = await ctx.db.execute(sql`select count(*)::int as n from jobs where status = 'pending' and name = ${DELIVER_JOB}`);
    if (Number((result as unknown as { rows: { n: number }[] }).rows[0].n) === 0) return;
  }
  throw new Error('deliveries did not finish');
}

/**
 * Runs jobs until none is running or due. `jobs.drain()` alone can return while a job woken by an enqueue
 * runs on the runner's own loop (on PostgreSQL the two use different pool connections), so a test that reads
 * the outcome right after a drain could read it half done.
 */
export async function settle(ctx: AppContext): Promise<void> {
  for (let i = 0; i < 1000; i += 1) {
    await ctx.jobs.drain();
    const result = await ctx.db.execute(sql`select count(*)::int as n from jobs where status = 'running' or (status = 'pending' and run_at <= now())`);
    if (Number((result as unknown as { rows: { n: number }[] }).rows[0].n) === 0) return;
    // A job is running on the runner's loop: give it a moment (there is no event to await for it).
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('jobs did not settle');
}

/** The errors of a conversation's unanswered entry (spec §2.9), parsed; [] when it has no entry. */
export async function unansweredErrors(ctx: AppContext, conversationId: number): Promise<Record<string, unknown>[]> {
  const [entry] = await ctx.db.select().from(unansweredConversations).where(eq(unansweredConversations.conversationId, conversationId));
  return entry ? (JSON.parse(entry.errors) as Record<string, unknown>[]) : [];
}
