import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { messagingAccounts, userMessagingAccounts, users } from '../../db/schema/index.ts';
import { AppError, askYourAdmin, badRequest, conflict, forbidden, notFound, unauthorized, unavailable } from '../../lib/errors.ts';
import { registrationInfo } from '../users/registration.ts';
import { authenticate } from '../users/users.service.ts';
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

/**
 * Webhook fields a connected Page is subscribed to: messages, postbacks and echoes, and for a Messenger Page also
 * delivery and read receipts (the replies' delivery states, docs/channels.md).
 */
const PAGE_FIELDS = 'messages,messaging_postbacks,message_echoes';
const MESSENGER_PAGE_FIELDS = `${PAGE_FIELDS},message_deliveries,message_reads`;

/** What the browser needs to start the flows (issue 9 §7): ids and dialog bases, read at run time. */
export function publicMetaConfig(ctx: AppContext) {
  const c = ctx.config;
  return {
    metaAppId: c.META_APP_ID ?? null,
    instagramAppId: c.INSTAGRAM_APP_ID ?? null,
    facebookDialogUrl: `${c.META_DIALOG_URL!.replace(/\/$/, '')}/${c.META_GRAPH_VERSION}/dialog/oauth`,
    instagramDialogUrl: `${c.INSTAGRAM_DIALOG_URL!.replace(/\/$/, '')}/oauth/authorize`,
    /** Which connect flows can start (issue 24): the web disables the others with the reason. */
    canConnect: {
      INSTAGRAM: appOf(ctx, 'INSTAGRAM').configured,
      FACEBOOK: appOf(ctx, 'FACEBOOK').configured,
      WHATSAPP: appOf(ctx, 'WHATSAPP').configured,
    },
  };
}

export const connectRedirectUri = (ctx: AppContext, type: ConnectType) => `${ctx.config.PUBLIC_URL}${CONNECT_RETURN_PATH}?type=${type}`;
const loginRedirectUri = (ctx: AppContext) => `${ctx.config.PUBLIC_URL}${LOGIN_RETURN_PATH}`;

/**
 * Instagram connects through Instagram Login when its app is configured; otherwise through Facebook Login
 * (the Instagram professional account linked to a granted Page, with the Page token).
 */
const instagramLogin = (ctx: AppContext) => Boolean(ctx.config.INSTAGRAM_APP_ID && ctx.config.INSTAGRAM_APP_SECRET);

/** The account types as the screens name them (never the internal type names). */
const CONNECT_NAMES: Record<ConnectType, string> = { INSTAGRAM: 'Instagram', FACEBOOK: 'Facebook Page', WHATSAPP: 'WhatsApp' };

/** The app a flow needs (Instagram Login's, else the Facebook app) and whether both its id and secret are set. */
function appOf(ctx: AppContext, purpose: OAuthPurpose): { configured: boolean; names: string } {
  const instagram = purpose === 'INSTAGRAM' && (instagramLogin(ctx) || !ctx.config.META_APP_ID);
  const [id, secret] = instagram ? [ctx.config.INSTAGRAM_APP_ID, ctx.config.INSTAGRAM_APP_SECRET] : [ctx.config.META_APP_ID, ctx.config.META_APP_SECRET];
  return { configured: Boolean(id && secret), names: instagram ? 'INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET' : 'META_APP_ID and META_APP_SECRET' };
}

function requireApp(ctx: AppContext, purpose: OAuthPurpose): void {
  const { configured, names } = appOf(ctx, purpose);
  if (!configured) {
    const feature = purpose === 'LOGIN' ? 'Facebook login' : `Connecting ${CONNECT_NAMES[purpose]} accounts`;
    throw unavailable(`${feature} is not set up on this server: set ${names}.`, 'META_NOT_CONFIGURED', askYourAdmin(feature));
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

export type FacebookLoginResult =
  | { status: 'signed-in'; actor: Actor; needsPassword: boolean }
  | { status: 'password-required'; email: string; linkToken: string };

/**
 * Facebook login (spec §7.8): the token must have been issued to this app (`/debug_token`), then the person is
 * found by their linked Facebook id, else by email, else registered as NORMAL without a password (set-password
 * can add one through the link the answer carries). An existing account with a password is linked only after
 * its owner proves that password (`linkFacebookLogin`) or is signed in as it; an ADMIN account never signs in
 * or links through Facebook.
 */
export async function loginWithFacebookToken(ctx: AppContext, token: string, signedIn: Actor | null = null): Promise<FacebookLoginResult> {
  requireApp(ctx, 'LOGIN');
  const graph = graphOAuthClient(ctx.config);
  let me: { id: string; email?: string };
  try {
    const debugged = await graph.debugToken(token);
    if (!debugged.isValid || debugged.appId !== ctx.config.META_APP_ID) {
      ctx.log.warn({ appId: debugged.appId, isValid: debugged.isValid }, 'facebook login refused: token not issued to this app');
      throw unauthorized('This Facebook login was not issued for this app. Please try again.');
    }
    me = await graph.me(token);
  } catch (err) {
    if (err instanceof GraphOAuthError) {
      ctx.log.warn({ metaCode: err.code, reason: err.message }, 'facebook login failed');
      throw unauthorized('Facebook did not accept this login. Please try again.');
    }
    throw err;
  }
  const email = me.email?.trim().toLowerCase();
  const facebookId = String(me.id);
  const [linked] = await ctx.db.select().from(users).where(eq(users.facebookId, facebookId)).limit(1);
  if (linked) return signedInResult(refuseAdmin(linked));
  if (!email) throw badRequest('Your Facebook account did not share an email address, which is needed to log in.', 'META_NO_EMAIL');
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!existing) {
    // A new account is a registration: REGISTRATION=invite|closed refuses it here as on the register page
    // (an invited person registers through the link first, then links Facebook from a signed-in session).
    const registration = registrationInfo(ctx.config);
    if (registration.message) throw new AppError(403, 'REGISTRATION_CLOSED', registration.message);
    const [created] = await ctx.db
      .insert(users)
      .values({ email, role: 'NORMAL', passwordHash: null, facebookId })
      .onConflictDoNothing()
      .returning();
    // A registration of the same email won the race: go through the checks of an existing account.
    if (created) return signedInResult(created);
    return loginWithFacebookToken(ctx, token, signedIn);
  }
  refuseAdmin(existing);
  if (existing.facebookId) throw conflict('This account is linked to another Facebook login. Log in with your email and password.', 'META_OTHER_FACEBOOK');
  // No password to prove (an account Facebook login created before accounts were linked), or its owner is signed in.
  if (!existing.passwordHash || signedIn?.id === existing.id) return signedInResult(await linkFacebookId(ctx, existing.id, facebookId));
  return { status: 'password-required', email: existing.email, linkToken: issueLinkToken(ctx.config.APP_SECRET, existing.id, facebookId) };
}

type UserRow = typeof users.$inferSelect;

function refuseAdmin(user: UserRow): UserRow {
  if (user.role === 'ADMIN') {
    throw forbidden('Facebook login cannot be used for an administrator account. Log in with your email and password.');
  }
  return user;
}

const signedInResult = (user: UserRow): FacebookLoginResult => ({
  status: 'signed-in',
  actor: { id: user.id, email: user.email, role: user.role },
  needsPassword: !user.passwordHash,
});

async function linkFacebookId(ctx: AppContext, userId: number, facebookId: string): Promise<UserRow> {
  const [row] = await ctx.db.update(users).set({ facebookId }).where(and(eq(users.id, userId), isNull(users.facebookId))).returning();
  if (!row) throw conflict('This account is linked to another Facebook login. Log in with your email and password.', 'META_OTHER_FACEBOOK');
  return row;
}

/** How long the "enter your password to link Facebook" step may take. */
const LINK_TTL_MS = 10 * 60_000;
const signLink = (secret: string, data: string) => createHmac('sha256', `facebook-link:${secret}`).update(data).digest('base64url');

function issueLinkToken(secret: string, userId: number, facebookId: string, now = Date.now()): string {
  const data = Buffer.from(JSON.stringify({ u: userId, f: facebookId, e: now + LINK_TTL_MS })).toString('base64url');
  return `${data}.${signLink(secret, data)}`;
}

const invalidLink = () => badRequest('This Facebook login has expired. Please continue with Facebook again.', 'INVALID_LINK_TOKEN');

function readLinkToken(secret: string, token: string): { userId: number; facebookId: string } {
  const [data, mac] = token.split('.');
  if (!data || !mac) throw invalidLink();
  const good = Buffer.from(signLink(secret, data));
  const given = Buffer.from(mac);
  if (good.length !== given.length || !timingSafeEqual(good, given)) throw invalidLink();
  const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { u: number; f: string; e: number };
  if (typeof payload.e !== 'number' || payload.e < Date.now()) throw invalidLink();
  return { userId: payload.u, facebookId: payload.f };
}

/**
 * The second step of Facebook login for an account that has a password: the person proves that password
 * (counted per account like a login, login-throttle.ts), then the Facebook login is linked and they are signed in.
 */
export async function linkFacebookLogin(ctx: AppContext, linkToken: string, password: string): Promise<Actor> {
  const { userId, facebookId } = readLinkToken(ctx.config.APP_SECRET, linkToken);
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw invalidLink();
  refuseAdmin(user);
  const actor = await authenticate(ctx, user.email, password);
  const row = await linkFacebookId(ctx, actor.id, facebookId);
  ctx.log.info({ userId: row.id }, 'facebook login linked after a password proof');
  return { id: row.id, email: row.email, role: row.role };
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
      await graph.subscribeApp(page.id, page.access_token, MESSENGER_PAGE_FIELDS);
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
