import { and, eq } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { messagingAccounts, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { AppError, badRequest, forbidden, notFound, unauthorized, unavailable } from '../../lib/errors.ts';
import { canAccessAccount, flagTokenRejected, readAccessToken } from '../messaging-accounts/access.ts';
import { GraphOAuthError, graphOAuthClient, TOKEN_REJECTED } from './graph-oauth.client.ts';
import type { OAuthPurpose } from './oauth-state.ts';

export type ConnectType = 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP';

/** The product routes Meta sends the browser back to (spec §2.2). */
export const CONNECT_RETURN_PATH = '/user/connect-meta-page';
export const LOGIN_RETURN_PATH = '/user/meta-login-register-redirect';

/**
 * Permissions each flow asks for. Instagram connects through Instagram Login (its own app and dialog);
 * Facebook Pages and WhatsApp numbers through Facebook Login with the Page / WhatsApp Business scopes.
 */
export const SCOPES: Record<OAuthPurpose | 'INSTAGRAM_VIA_FACEBOOK', string> = {
  LOGIN: 'public_profile,email',
  INSTAGRAM: 'instagram_business_basic,instagram_business_manage_messages',
  INSTAGRAM_VIA_FACEBOOK: 'instagram_basic,instagram_manage_messages,pages_show_list,pages_manage_metadata,business_management',
  FACEBOOK: 'pages_show_list,pages_messaging,pages_manage_metadata,business_management',
  WHATSAPP: 'whatsapp_business_management,whatsapp_business_messaging,business_management',
};

/** Webhook fields a connected Page is subscribed to (channels read messages, postbacks and echoes). */
const PAGE_FIELDS = 'messages,messaging_postbacks,message_echoes';

/** What the browser needs to start the flows (issue 9 §7): ids and dialog bases, read at run time. */
export function publicMetaConfig(ctx: AppContext) {
  const c = ctx.config;
  return {
    metaAppId: c.META_APP_ID ?? null,
    instagramAppId: c.INSTAGRAM_APP_ID ?? null,
    facebookDialogUrl: `${c.META_DIALOG_URL!.replace(/\/$/, '')}/${c.META_GRAPH_VERSION}/dialog/oauth`,
    instagramDialogUrl: `${c.INSTAGRAM_DIALOG_URL!.replace(/\/$/, '')}/oauth/authorize`,
  };
}

export const connectRedirectUri = (ctx: AppContext, type: ConnectType) => `${ctx.config.PUBLIC_URL}${CONNECT_RETURN_PATH}?type=${type}`;
const loginRedirectUri = (ctx: AppContext) => `${ctx.config.PUBLIC_URL}${LOGIN_RETURN_PATH}`;

/**
 * Instagram connects through Instagram Login when its app is configured; otherwise through Facebook Login
 * (the Instagram professional account linked to a granted Page, with the Page token).
 */
const instagramLogin = (ctx: AppContext) => Boolean(ctx.config.INSTAGRAM_APP_ID && ctx.config.INSTAGRAM_APP_SECRET);

function requireApp(ctx: AppContext, purpose: OAuthPurpose): void {
  const instagram = purpose === 'INSTAGRAM' && (instagramLogin(ctx) || !ctx.config.META_APP_ID);
  const [id, secret] = instagram ? [ctx.config.INSTAGRAM_APP_ID, ctx.config.INSTAGRAM_APP_SECRET] : [ctx.config.META_APP_ID, ctx.config.META_APP_SECRET];
  if (!id || !secret) {
    const names = instagram ? 'INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET' : 'META_APP_ID and META_APP_SECRET';
    throw unavailable(`${purpose === 'LOGIN' ? 'Facebook login' : `Connecting ${purpose} accounts`} is not set up on this server (${names}).`, 'META_NOT_CONFIGURED');
  }
}

/** The OAuth dialog URL for a flow, carrying the signed `state`. */
export function buildAuthorizeUrl(ctx: AppContext, purpose: OAuthPurpose, state: string): string {
  requireApp(ctx, purpose);
  const config = publicMetaConfig(ctx);
  if (purpose === 'INSTAGRAM' && instagramLogin(ctx)) {
    const params = new URLSearchParams({
      client_id: ctx.config.INSTAGRAM_APP_ID!,
      redirect_uri: connectRedirectUri(ctx, 'INSTAGRAM'),
      response_type: 'code',
      scope: SCOPES.INSTAGRAM,
      state,
    });
    return `${config.instagramDialogUrl}?${params}`;
  }
  const params = new URLSearchParams({
    client_id: ctx.config.META_APP_ID!,
    redirect_uri: purpose === 'LOGIN' ? loginRedirectUri(ctx) : connectRedirectUri(ctx, purpose),
    // Login gets the token in the URL hash (spec §2.2); connects get a code the server exchanges.
    response_type: purpose === 'LOGIN' ? 'token' : 'code',
    scope: purpose === 'INSTAGRAM' ? SCOPES.INSTAGRAM_VIA_FACEBOOK : SCOPES[purpose],
    state,
  });
  return `${config.facebookDialogUrl}?${params}`;
}

/**
 * Facebook login (spec §7.8): the token must have been issued to this app (`/debug_token`), then the
 * person is found by email or registered as NORMAL without a password (set-password can add one).
 */
export async function loginWithFacebookToken(ctx: AppContext, token: string): Promise<Actor> {
  requireApp(ctx, 'LOGIN');
  const graph = graphOAuthClient(ctx.config);
  let email: string | undefined;
  try {
    const debugged = await graph.debugToken(token);
    if (!debugged.isValid || debugged.appId !== ctx.config.META_APP_ID) {
      ctx.log.warn({ appId: debugged.appId, isValid: debugged.isValid }, 'facebook login refused: token not issued to this app');
      throw unauthorized('This Facebook login was not issued for this app. Please try again.');
    }
    email = (await graph.me(token)).email?.trim().toLowerCase();
  } catch (err) {
    if (err instanceof GraphOAuthError) {
      ctx.log.warn({ metaCode: err.code, reason: err.message }, 'facebook login failed');
      throw unauthorized('Facebook did not accept this login. Please try again.');
    }
    throw err;
  }
  if (!email) throw badRequest('Your Facebook account did not share an email address, which is needed to log in.', 'META_NO_EMAIL');
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (existing) return { id: existing.id, email: existing.email, role: existing.role };
  const [created] = await ctx.db
    .insert(users)
    .values({ email, role: 'NORMAL', passwordHash: null })
    .onConflictDoUpdate({ target: users.email, set: { email } })
    .returning();
  return { id: created.id, email: created.email, role: created.role };
}

interface FoundAccount {
  pageId: string;
  pageName: string;
  accessToken: string;
  expirationDate: Date | null;
  config: Record<string, string>;
}

const expiresFromNow = (seconds: number | null) => (seconds ? new Date(Date.now() + seconds * 1000) : null);

/** Exchanges the code and finds what the person granted, subscribing each to our webhooks. */
async function findGrantedAccounts(ctx: AppContext, type: ConnectType, code: string): Promise<FoundAccount[]> {
  const graph = graphOAuthClient(ctx.config);
  const redirectUri = connectRedirectUri(ctx, type);
  if (type === 'INSTAGRAM' && instagramLogin(ctx)) {
    const short = await graph.instagramExchangeCode(code, redirectUri);
    const long = await graph.instagramLongLived(short.accessToken);
    const me = await graph.instagramMe(long.accessToken);
    await graph.instagramSubscribe(long.accessToken);
    const pageId = String(me.user_id ?? short.userId);
    return [{ pageId, pageName: me.username ?? me.name ?? pageId, accessToken: long.accessToken, expirationDate: expiresFromNow(long.expiresIn), config: { login: 'instagram' } }];
  }
  const short = await graph.exchangeCode(code, redirectUri);
  const long = await graph.exchangeLongLived(short.accessToken);
  if (type === 'INSTAGRAM') {
    const found: FoundAccount[] = [];
    for (const page of await graph.pages(long.accessToken)) {
      const ig = page.instagram_business_account;
      if (!ig) continue;
      // Instagram messaging webhooks come through the linked Page's subscription.
      await graph.subscribeApp(page.id, page.access_token, PAGE_FIELDS);
      const { expiresAt } = await graph.debugToken(page.access_token);
      found.push({ pageId: ig.id, pageName: ig.username ?? page.name, accessToken: page.access_token, expirationDate: expiresAt ? new Date(expiresAt * 1000) : null, config: { login: 'facebook' } });
    }
    return found;
  }
  if (type === 'FACEBOOK') {
    const pages = await graph.pages(long.accessToken);
    const found: FoundAccount[] = [];
    for (const page of pages) {
      await graph.subscribeApp(page.id, page.access_token, PAGE_FIELDS);
      // Page tokens obtained from a long-lived user token do not expire (expires_at 0).
      const { expiresAt } = await graph.debugToken(page.access_token);
      found.push({ pageId: page.id, pageName: page.name, accessToken: page.access_token, expirationDate: expiresAt ? new Date(expiresAt * 1000) : null, config: {} });
    }
    return found;
  }
  // WhatsApp: the Business accounts granted are the target ids of the whatsapp_business_management scope.
  const debugged = await graph.debugToken(long.accessToken);
  const wabaIds = debugged.granularScopes.find((s) => s.scope === 'whatsapp_business_management')?.target_ids ?? [];
  const found: FoundAccount[] = [];
  for (const wabaId of wabaIds) {
    await graph.subscribeApp(wabaId, long.accessToken);
    for (const phone of await graph.phoneNumbers(wabaId, long.accessToken)) {
      found.push({
        pageId: phone.id,
        pageName: phone.verified_name ?? phone.display_phone_number ?? phone.id,
        accessToken: long.accessToken,
        expirationDate: debugged.expiresAt ? new Date(debugged.expiresAt * 1000) : expiresFromNow(long.expiresIn),
        config: { wabaId },
      });
    }
  }
  return found;
}

/**
 * Connect (spec §7.8): code → long-lived token → accounts, each created or updated (the channel mapping of
 * channels/types.ts, token sealed) and granted to the connecting user. Answers the page name(s). Provider
 * failures are logged with Meta's code and message (never a token) and answered as the spec's sentence.
 */
export async function connectAccounts(ctx: AppContext, actor: Actor, type: ConnectType, code: string): Promise<{ pageName: string }> {
  requireApp(ctx, type);
  let found: FoundAccount[];
  try {
    found = await findGrantedAccounts(ctx, type, code);
  } catch (err) {
    if (!(err instanceof GraphOAuthError)) throw err;
    ctx.log.warn({ type, metaCode: err.code, reason: err.message, userId: actor.id }, 'meta connect failed');
    throw new AppError(502, 'META_CONNECT_FAILED', `Error connecting ${type} account`);
  }
  if (found.length === 0) {
    ctx.log.warn({ type, userId: actor.id }, 'meta connect found nothing granted');
    throw new AppError(422, 'META_NOTHING_GRANTED', `Error connecting ${type} account`);
  }
  await ctx.db.transaction(async (tx) => {
    // Rows are written in one order (by page id), so two connects sharing pages never wait on each other in a cycle.
    for (const account of [...found].sort((a, b) => (a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0))) {
      const id = await upsertConnectedAccount(ctx, tx, actor, type, account);
      await tx.insert(userMessagingAccounts).values({ userId: actor.id, messagingAccountId: id }).onConflictDoNothing();
    }
  });
  ctx.events.emit('grants.changed', { userId: actor.id });
  return { pageName: found.map((a) => a.pageName).join(', ') };
}

type Tx = Parameters<Parameters<AppContext['db']['transaction']>[0]>[0];

/**
 * Creates the account, or updates the one this (type, pageId) already has, in one statement decided by the
 * unique index (migration 0008): an account an ADMIN creates, or another connect makes, between a look-up and
 * an insert would otherwise make this connect fail with a unique violation. A new account is owned by the
 * connecting user; an existing one keeps its owner (a colleague reconnecting does not take it over) and what
 * an admin configured: only the config keys this flow owns change. The upsert leaves the row locked until
 * the commit, so the config merge that follows cannot lose a concurrent edit.
 */
async function upsertConnectedAccount(ctx: AppContext, tx: Tx, actor: Actor, type: ConnectType, account: FoundAccount): Promise<number> {
  const sealed = ctx.secrets.seal(account.accessToken);
  const fresh = { accessTokenEncrypted: sealed, pageName: account.pageName, expirationDate: account.expirationDate };
  const [row] = await tx
    .insert(messagingAccounts)
    .values({ type, pageId: account.pageId, ...fresh, config: JSON.stringify(account.config), createdByUserId: actor.id })
    .onConflictDoUpdate({ target: [messagingAccounts.type, messagingAccounts.pageId], set: { ...fresh, tokenRejectedAt: null } })
    .returning({ id: messagingAccounts.id, config: messagingAccounts.config });
  // For a new row this is its own config again (no second write); for an existing one, the stored keys plus ours.
  const config = JSON.stringify({ ...parseObject(row.config), ...account.config });
  if (config !== row.config) await tx.update(messagingAccounts).set({ config }).where(eq(messagingAccounts.id, row.id));
  return row.id;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Names change rarely; an hour keeps the profile and conversation screens from calling Meta on every view. */
const NAME_TTL_MS = 60 * 60_000;
const NAME_CACHE_MAX = 5_000;
const nameCache = new Map<string, { name: string; at: number }>();

/**
 * GET /api/meta-api/page-name: the live name of a Page / Instagram account or of a prospect on it, looked
 * up with the stored token of an account the actor may use (the spec's accessToken query is not trusted:
 * browsers never hold tokens). `messagingAccountId` picks the account; by default the one whose pageId it is.
 */
export async function lookupPageName(
  ctx: AppContext,
  actor: Actor,
  input: { pageId: string; type: 'INSTAGRAM' | 'FACEBOOK'; messagingAccountId?: number },
): Promise<{ name: string }> {
  const condition =
    input.messagingAccountId === undefined
      ? and(eq(messagingAccounts.type, input.type), eq(messagingAccounts.pageId, input.pageId))
      : and(eq(messagingAccounts.type, input.type), eq(messagingAccounts.id, input.messagingAccountId));
  const [account] = await ctx.db.select().from(messagingAccounts).where(condition).limit(1);
  if (!account) throw notFound('Messaging account not found', 'MESSAGING_ACCOUNT_NOT_FOUND');
  if (!(await canAccessAccount(ctx, actor, account.id))) throw forbidden('You do not have access to this account.');
  const key = `${account.id}:${input.pageId}`;
  const cached = nameCache.get(key);
  if (cached && Date.now() - cached.at < NAME_TTL_MS) return { name: cached.name };
  const instagramLogin = account.type === 'INSTAGRAM' && parseObject(account.config).login === 'instagram';
  const fields = account.type === 'INSTAGRAM' ? 'name,username' : 'name';
  let name: string;
  try {
    const node = await graphOAuthClient(ctx.config).node(input.pageId, fields, readAccessToken(ctx, account), instagramLogin ? 'instagram' : 'facebook');
    name = node.name ?? node.username ?? account.pageName;
  } catch (err) {
    if (!(err instanceof GraphOAuthError)) throw err;
    ctx.log.warn({ accountId: account.id, metaCode: err.code, reason: err.message }, 'page name lookup failed');
    // Meta rejected the stored token (190): the profile and the accounts list then ask for a reconnect.
    if (err.code === TOKEN_REJECTED && input.pageId === account.pageId) await flagTokenRejected(ctx, account.id);
    // The stored name is a fair answer when Meta cannot be asked; it is not cached, so the next view retries.
    return { name: account.pageName };
  }
  if (nameCache.size >= NAME_CACHE_MAX) nameCache.delete(nameCache.keys().next().value!);
  nameCache.set(key, { name, at: Date.now() });
  return { name };
}
