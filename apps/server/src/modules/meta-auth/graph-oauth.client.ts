import type { AppConfig } from '../../config/env.ts';
import { redactText } from '../../lib/redact.ts';

/**
 * The Graph API and Instagram API calls of OAuth, plain HTTP (Meta publishes no Node SDK). Every failure
 * becomes a GraphOAuthError carrying Meta's error code and message, never the token that was sent.
 * Wire facts: shared/reference/third-party-facts.md "OAuth (Facebook Login)" and "Instagram Login".
 */
export class GraphOAuthError extends Error {
  constructor(
    message: string,
    /** Meta's `error.code` (190 = token invalid or expired), or the HTTP status when the body has none. */
    readonly code: number | null,
  ) {
    super(message);
    this.name = 'GraphOAuthError';
  }
}

/** Meta's "token invalid or expired" (revoked, password changed, expired): only a new connect helps. */
export const TOKEN_REJECTED = 190;

export interface ShortToken {
  accessToken: string;
  expiresIn: number | null;
}

export interface DebuggedToken {
  appId: string;
  isValid: boolean;
  userId: string | null;
  /** Seconds since the epoch; 0 means the token never expires. */
  expiresAt: number;
  /** Granular scopes with the ids they were granted on (WhatsApp Business accounts, Pages). */
  granularScopes: { scope: string; target_ids?: string[] }[];
}

export interface GrantedPage {
  id: string;
  name: string;
  access_token: string;
  instagram_business_account?: { id: string; username?: string };
}

type Endpoints = Pick<
  AppConfig,
  'META_GRAPH_URL' | 'META_GRAPH_VERSION' | 'INSTAGRAM_GRAPH_URL' | 'INSTAGRAM_API_URL' | 'META_APP_ID' | 'META_APP_SECRET' | 'INSTAGRAM_APP_ID' | 'INSTAGRAM_APP_SECRET'
>;

/** At most this many `paging.next` rounds of a Graph list (100 items each). */
const MAX_PAGING_ROUNDS = 20;

const trim = (base: string | undefined) => (base ?? '').replace(/\/$/, '');

/** The credentials a Graph request carries (query or form body): an error message must not repeat them. */
function secretsOfRequest(url: string, init?: RequestInit): string[] {
  const names = ['access_token', 'input_token', 'client_secret', 'fb_exchange_token', 'code'];
  const params = [new URL(url).searchParams];
  if (init?.body instanceof URLSearchParams) params.push(init.body);
  else if (typeof init?.body === 'string') params.push(new URLSearchParams(init.body));
  return params.flatMap((p) => names.flatMap((name) => p.getAll(name)));
}

async function call<T>(url: string, init?: RequestInit): Promise<T> {
  // Graph answers "Malformed access token <the token>": every message is redacted before it is thrown,
  // logged (login, connect, refresh, page-name lookup) or shown.
  const refused = (message: string, code: number | null) => new GraphOAuthError(redactText(message, secretsOfRequest(url, init)), code);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    throw refused(`Meta could not be reached: ${(err as Error).message}`, null);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* a non-JSON answer is reported by status below */
  }
  const error = (body as { error?: { message?: string; code?: number; error_message?: string } } | null)?.error;
  if (!response.ok || error) {
    // Instagram's api host answers {error_type, code, error_message}; Graph answers {error:{message, code}}.
    const flat = body as { error_message?: string; code?: number } | null;
    const message = error?.message ?? error?.error_message ?? flat?.error_message ?? `HTTP ${response.status}`;
    throw refused(`Meta refused the request: ${message}`, error?.code ?? flat?.code ?? response.status);
  }
  return body as T;
}

/** The OAuth client bound to the configured hosts and app credentials. */
export function graphOAuthClient(config: Endpoints) {
  const graph = `${trim(config.META_GRAPH_URL)}/${config.META_GRAPH_VERSION}`;
  const igGraph = trim(config.INSTAGRAM_GRAPH_URL);
  const igApi = trim(config.INSTAGRAM_API_URL);
  const appToken = `${config.META_APP_ID}|${config.META_APP_SECRET}`;
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  const toShort = (b: { access_token: string; expires_in?: number }): ShortToken => ({
    accessToken: b.access_token,
    expiresIn: typeof b.expires_in === 'number' ? b.expires_in : null,
  });

  return {
    /** Facebook Login: code → short-lived user token. */
    async exchangeCode(code: string, redirectUri: string): Promise<ShortToken> {
      const params = q({ client_id: config.META_APP_ID ?? '', client_secret: config.META_APP_SECRET ?? '', redirect_uri: redirectUri, code });
      return toShort(await call(`${graph}/oauth/access_token?${params}`));
    },

    /** Facebook Login: any user token → long-lived (~60 days) user token. */
    async exchangeLongLived(token: string): Promise<ShortToken> {
      const params = q({
        grant_type: 'fb_exchange_token',
        client_id: config.META_APP_ID ?? '',
        client_secret: config.META_APP_SECRET ?? '',
        fb_exchange_token: token,
      });
      return toShort(await call(`${graph}/oauth/access_token?${params}`));
    },

    /** Inspects a token with the app token: which app it was issued to, whose, until when. */
    async debugToken(token: string): Promise<DebuggedToken> {
      const body = await call<{ data: { app_id?: string; is_valid?: boolean; user_id?: string; expires_at?: number; granular_scopes?: DebuggedToken['granularScopes'] } }>(
        `${graph}/debug_token?${q({ input_token: token, access_token: appToken })}`,
      );
      const d = body.data ?? {};
      return {
        appId: String(d.app_id ?? ''),
        isValid: d.is_valid === true,
        userId: d.user_id ?? null,
        expiresAt: d.expires_at ?? 0,
        granularScopes: d.granular_scopes ?? [],
      };
    },

    async me(token: string): Promise<{ id: string; name?: string; email?: string }> {
      return call(`${graph}/me?${q({ fields: 'id,name,email', access_token: token })}`);
    },

    /**
     * Pages the user granted, each with its Page token (non-expiring when the user token is long-lived) and
     * the Instagram professional account linked to it, if any.
     */
    async pages(token: string): Promise<GrantedPage[]> {
      const pages: GrantedPage[] = [];
      let url: string | undefined = `${graph}/me/accounts?${q({ fields: 'id,name,access_token,instagram_business_account{id,username}', limit: '100', access_token: token })}`;
      // Graph pages its lists (`paging.next`); a business with many Pages must get all of them connected.
      // The bound keeps a misbehaving answer from looping forever.
      for (let round = 0; url && round < MAX_PAGING_ROUNDS; round += 1) {
        const body: { data?: GrantedPage[]; paging?: { next?: string } } = await call(url);
        pages.push(...(body.data ?? []));
        url = body.paging?.next;
      }
      return pages;
    },

    /** Subscribes our app to a Page's or WhatsApp Business account's webhooks. */
    async subscribeApp(id: string, token: string, fields?: string): Promise<void> {
      const params = q({ ...(fields ? { subscribed_fields: fields } : {}), access_token: token });
      await call(`${graph}/${encodeURIComponent(id)}/subscribed_apps?${params}`, { method: 'POST' });
    },

    async phoneNumbers(wabaId: string, token: string): Promise<{ id: string; display_phone_number?: string; verified_name?: string }[]> {
      const body = await call<{ data: { id: string; display_phone_number?: string; verified_name?: string }[] }>(
        `${graph}/${encodeURIComponent(wabaId)}/phone_numbers?${q({ fields: 'id,display_phone_number,verified_name', access_token: token })}`,
      );
      return body.data ?? [];
    },

    /** `/{id}?fields=…` on Facebook's Graph or, for Instagram Login tokens, Instagram's. */
    async node(id: string, fields: string, token: string, host: 'facebook' | 'instagram'): Promise<{ id?: string; name?: string; username?: string }> {
      const base = host === 'instagram' ? `${igGraph}/${config.META_GRAPH_VERSION}` : graph;
      return call(`${base}/${encodeURIComponent(id)}?${q({ fields, access_token: token })}`);
    },

    /** Instagram Login: code → short-lived token and the Instagram user id (older answers wrap it in data[]). */
    async instagramExchangeCode(code: string, redirectUri: string): Promise<{ accessToken: string; userId: string }> {
      const form = q({
        client_id: config.INSTAGRAM_APP_ID ?? '',
        client_secret: config.INSTAGRAM_APP_SECRET ?? '',
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code,
      });
      const body = await call<{ access_token?: string; user_id?: string | number; data?: { access_token: string; user_id: string | number }[] }>(
        `${igApi}/oauth/access_token`,
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form },
      );
      const item = body.data?.[0] ?? body;
      if (!item.access_token) throw new GraphOAuthError('Meta refused the request: no access_token in the answer', null);
      return { accessToken: item.access_token, userId: String(item.user_id ?? '') };
    },

    /** Instagram Login: short-lived → long-lived (60 days). */
    async instagramLongLived(token: string): Promise<ShortToken> {
      const params = q({ grant_type: 'ig_exchange_token', client_secret: config.INSTAGRAM_APP_SECRET ?? '', access_token: token });
      return toShort(await call(`${igGraph}/access_token?${params}`));
    },

    /** Instagram Login: a long-lived token (at least 24 h old, not expired) → a fresh 60 days. */
    async instagramRefresh(token: string): Promise<ShortToken> {
      return toShort(await call(`${igGraph}/refresh_access_token?${q({ grant_type: 'ig_refresh_token', access_token: token })}`));
    },

    /** Instagram Login: the professional account behind the token (user_id is the id webhooks carry). */
    async instagramMe(token: string): Promise<{ user_id?: string; id?: string; username?: string; name?: string }> {
      return call(`${igGraph}/${config.META_GRAPH_VERSION}/me?${q({ fields: 'user_id,username,name', access_token: token })}`);
    },

    /** Subscribes an Instagram Login account to our app's message webhooks and read receipts (messaging_seen). */
    async instagramSubscribe(token: string): Promise<void> {
      await call(`${igGraph}/${config.META_GRAPH_VERSION}/me/subscribed_apps?${q({ subscribed_fields: 'messages,messaging_seen', access_token: token })}`, {
        method: 'POST',
      });
    },
  };
}

export type GraphOAuthClient = ReturnType<typeof graphOAuthClient>;
