import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import twilio from 'twilio';
import type { AppContext } from '../context.ts';
import { conversations, conversationTypes, messages, outbox } from '../db/schema/index.ts';
import { buildPlaybook, type PlaybookSeed } from '../test/agent-factories.ts';
import type { TestApp } from '../test/build-test-app.ts';
import { buildChannelAccount, PUBLIC_URL } from '../test/channel-factories.ts';

/** Test helpers of the call and voice tests (not loaded by the app). */

export const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
export const AUTH_TOKEN = 'twilio-auth-token';
export const OUR_NUMBER = '+15550001111';
export const CALLEE = '+14155550123';
export const AZURE_KEY = 'azure-tts-key';

/** A fresh storage directory per app: speech audio is cached by text, so apps must not share one. */
export const freshStorageDir = () => mkdtempSync(path.join(tmpdir(), 'sales-agent-voice-'));

/** A TWILIO account (number, Auth Token, accountSid) and a playbook that calls from it. */
export async function buildCallSetup(ctx: AppContext, seed: PlaybookSeed & { accountConfig?: Record<string, unknown>; pageId?: string } = {}) {
  const account = await buildChannelAccount(ctx, {
    type: 'TWILIO',
    pageId: seed.pageId ?? OUR_NUMBER,
    token: AUTH_TOKEN,
    config: seed.accountConfig ?? { accountSid: ACCOUNT_SID },
  });
  const type = await buildPlaybook(ctx, seed);
  await ctx.db.update(conversationTypes).set({ messagingAccountId: account.id }).where(eq(conversationTypes.id, type.id));
  return { account, type };
}

/** Posts a Twilio callback form signed as Twilio signs it (Auth Token, PUBLIC_URL + path + query, sorted params). */
export function postSigned(t: TestApp, url: string, params: Record<string, string>, options: { token?: string; signature?: string | null } = {}) {
  const signature = options.signature === undefined ? twilio.getExpectedTwilioSignature(options.token ?? AUTH_TOKEN, PUBLIC_URL + url, params) : options.signature;
  return t.request({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature === null ? {} : { 'x-twilio-signature': signature }) },
    payload: new URLSearchParams(params).toString(),
  });
}

export async function callRow(ctx: AppContext, uuid: string) {
  const [row] = await ctx.db.select().from(conversations).where(eq(conversations.uuid, uuid));
  return row;
}

export async function messagesOfCall(ctx: AppContext, conversationId: number) {
  return ctx.db.select({ role: messages.role, message: messages.message }).from(messages).where(eq(messages.conversationId, conversationId)).orderBy(messages.id);
}

export async function outboxOfCall(ctx: AppContext, conversationId: number) {
  return ctx.db.select().from(outbox).where(eq(outbox.conversationId, conversationId));
}

/** The form fields Twilio posts to an outbound call's callbacks (the call's own, before what `extra` adds). */
export const callForm = (sid: string, extra: Record<string, string> = {}) => ({
  AccountSid: ACCOUNT_SID,
  CallSid: sid,
  From: OUR_NUMBER,
  To: CALLEE,
  Direction: 'outbound-api',
  ApiVersion: '2010-04-01',
  ...extra,
});

/** The URLs of <Play> elements and the texts of <Say> elements of a TwiML answer. */
export function spokenParts(xml: string): { plays: string[]; says: string[] } {
  const plays = [...xml.matchAll(/<Play>([^<]*)<\/Play>/g)].map((m) => m[1].replaceAll('&amp;', '&'));
  const says = [...xml.matchAll(/<Say[^>]*>([^<]*)<\/Say>/g)].map((m) => m[1].replaceAll('&apos;', "'").replaceAll('&amp;', '&'));
  return { plays, says };
}

/** A played URL as the app's own path (Twilio fetches PUBLIC_URL + path). */
export const localPath = (url: string) => {
  if (!url.startsWith(PUBLIC_URL)) throw new Error(`not our URL: ${url}`);
  return url.slice(PUBLIC_URL.length);
};
