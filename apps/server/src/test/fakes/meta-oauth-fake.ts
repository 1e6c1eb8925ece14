import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received (path without query, parsed query and form). No tokens are logged by it. */
export interface OAuthFakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
}

interface TokenRecord {
  kind: 'user' | 'page' | 'instagram';
  appId: string;
  /** Seconds since the epoch; 0 = never. */
  expiresAt: number;
  valid: boolean;
  pageId?: string;
}

/** A Graph error body exactly as Meta sends it. */
export const graphError = (message: string, code: number, type = 'OAuthException') => ({
  error: { message, type, code, fbtrace_id: 'AbCdEfGhIjK' },
});

/**
 * A loopback stand-in for the OAuth side of Meta, speaking the real wire format (third-party-facts.md):
 * Facebook's Graph (`/{v}/oauth/access_token` incl. `fb_exchange_token`, `/debug_token`, `/me`,
 * `/me/accounts`, `/{id}/subscribed_apps`, `/{waba}/phone_numbers`, `/{id}?fields=`), Instagram Login's
 * `POST /oauth/access_token`, `/access_token` (ig_exchange_token), `/refresh_access_token`, and the two
 * OAuth dialogs, which consent at once and send the browser back with a code (or `#access_token`).
 * One server plays every host; tests point META_GRAPH_URL, INSTAGRAM_GRAPH_URL, INSTAGRAM_API_URL and the
 * dialog URLs at it. Failures are programmed per path with `failNext`.
 */
export class MetaOAuthFake {
  readonly requests: OAuthFakeRequest[] = [];
  readonly subscribed: string[] = [];
  user = { id: '10001', name: 'Fiona Fake', email: 'fiona.fake@example.com' };
  /** Granted Pages; `instagram` links an Instagram professional account (connect through Facebook Login). */
  pages: { id: string; name: string; instagram?: { id: string; username: string } }[] = [{ id: '200001', name: 'Fake Bakery Page' }];
  instagram = { userId: '17841400000000001', username: 'fake_bakery' };
  wabas = [{ id: '300001', phones: [{ id: '400001', display_phone_number: '+1 555-0100', verified_name: 'Fake Bakery WhatsApp' }] }];
  /** The most items one page of a Graph list holds here (Graph's own cap is 100); small to test paging. */
  maxPageSize = 100;
  /** Extra names for `/{id}?fields=name` (prospects). */
  names = new Map<string, string>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, 'facebook' | 'instagram'>();
  private readonly failures = new Map<string, { status: number; body: unknown }[]>();
  private server: Server | null = null;

  constructor(
    readonly appId = 'fake-meta-app',
    readonly appSecret = 'fake-meta-secret',
    readonly instagramAppId = 'fake-ig-app',
    readonly instagramAppSecret = 'fake-ig-secret',
  ) {}

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return this.baseUrl;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The environment that points the app at this fake. */
  env(): Record<string, string> {
    return {
      META_APP_ID: this.appId,
      META_APP_SECRET: this.appSecret,
      INSTAGRAM_APP_ID: this.instagramAppId,
      INSTAGRAM_APP_SECRET: this.instagramAppSecret,
      META_GRAPH_URL: this.baseUrl,
      INSTAGRAM_GRAPH_URL: this.baseUrl,
      INSTAGRAM_API_URL: this.baseUrl,
      META_DIALOG_URL: this.baseUrl,
      INSTAGRAM_DIALOG_URL: this.baseUrl,
    };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A code the dialog would have issued. */
  issueCode(host: 'facebook' | 'instagram' = 'facebook'): string {
    const code = `AQ${randomBytes(12).toString('hex')}`;
    this.codes.set(code, host);
    return code;
  }

  /** A user token as Facebook Login's token flow hands it out (optionally issued to another app). */
  issueUserToken(options: { appId?: string; valid?: boolean } = {}): string {
    return this.mint({ kind: 'user', appId: options.appId ?? this.appId, expiresAt: now() + 3600, valid: options.valid ?? true });
  }

  /** A long-lived Instagram Login token expiring in `seconds`. */
  issueInstagramToken(seconds = 60 * 86_400): string {
    return this.mint({ kind: 'instagram', appId: this.instagramAppId, expiresAt: now() + seconds, valid: true });
  }

  /** Invalidates a token: every later use answers code 190 (what a user's password change or revocation does). */
  revoke(token: string): void {
    const record = this.tokens.get(token);
    if (record) record.valid = false;
  }

  /** The next request to `path` (e.g. '/oauth/access_token', '/v27.0/me/accounts') fails with this answer. */
  failNext(path: string, status: number, body: unknown = graphError('An unknown error has occurred.', 1)): void {
    const list = this.failures.get(path) ?? [];
    list.push({ status, body });
    this.failures.set(path, list);
  }

  private mint(record: TokenRecord): string {
    const token = `${record.kind === 'instagram' ? 'IGQ' : 'EAA'}${randomBytes(16).toString('hex')}`;
    this.tokens.set(token, record);
    return token;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const query = Object.fromEntries(url.searchParams);
    const path = url.pathname;
    this.requests.push({ method: req.method ?? 'GET', path, query, form });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const failure = this.failures.get(path)?.shift();
    if (failure) return send(failure.status, failure.body);

    // The dialogs: consent at once, back to redirect_uri (code in the query, or the token in the hash).
    if (path.endsWith('/dialog/oauth') || path === '/oauth/authorize') {
      const back = new URL(query.redirect_uri);
      if (query.response_type === 'token') {
        const hash = new URLSearchParams({ access_token: this.issueUserToken(), token_type: 'bearer', expires_in: '3600', state: query.state ?? '' });
        back.hash = hash.toString();
      } else {
        back.searchParams.set('code', this.issueCode(path === '/oauth/authorize' ? 'instagram' : 'facebook'));
        back.searchParams.set('state', query.state ?? '');
      }
      res.writeHead(302, { location: back.toString() });
      return void res.end();
    }

    // Instagram Login's code exchange (api.instagram.com): form body, flat answer or Instagram's error shape.
    if (path === '/oauth/access_token' && req.method === 'POST') {
      if (form.client_id !== this.instagramAppId || form.client_secret !== this.instagramAppSecret || this.codes.get(form.code) !== 'instagram') {
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid authorization code' });
      }
      this.codes.delete(form.code);
      const token = this.mint({ kind: 'instagram', appId: this.instagramAppId, expiresAt: now() + 3600, valid: true });
      return send(200, { access_token: token, user_id: Number(this.instagram.userId), permissions: ['instagram_business_basic'] });
    }
    if (path === '/access_token' || path === '/refresh_access_token') {
      const record = this.tokens.get(query.access_token);
      const grant = path === '/access_token' ? 'ig_exchange_token' : 'ig_refresh_token';
      if (query.grant_type !== grant || !record?.valid || record.kind !== 'instagram') return send(400, graphError('Invalid OAuth access token.', 190));
      if (path === '/access_token' && query.client_secret !== this.instagramAppSecret) return send(400, graphError('Error validating client secret.', 1));
      const token = this.mint({ kind: 'instagram', appId: this.instagramAppId, expiresAt: now() + 5_184_000, valid: true });
      return send(200, { access_token: token, token_type: 'bearer', expires_in: 5_184_000 });
    }

    const versioned = path.match(/^\/v\d+\.\d+(\/.*)$/);
    if (!versioned) return send(404, graphError(`Unknown path components: ${path}`, 2500));
    const rest = versioned[1];

    if (rest === '/oauth/access_token') {
      if (query.client_id !== this.appId || query.client_secret !== this.appSecret) return send(400, graphError('Error validating client secret.', 1));
      if (query.grant_type === 'fb_exchange_token') {
        const record = this.tokens.get(query.fb_exchange_token);
        if (!record?.valid || record.kind !== 'user') return send(400, graphError('Invalid OAuth access token.', 190));
        return send(200, { access_token: this.mint({ ...record, expiresAt: now() + 5_184_000 }), token_type: 'bearer', expires_in: 5_184_000 });
      }
      if (this.codes.get(query.code) !== 'facebook') {
        return send(400, graphError('Invalid verification code format.', 100));
      }
      this.codes.delete(query.code);
      return send(200, { access_token: this.issueUserToken(), token_type: 'bearer', expires_in: 3600 });
    }
    if (rest === '/debug_token') {
      if (query.access_token !== `${this.appId}|${this.appSecret}`) return send(400, graphError('Invalid OAuth access token.', 190));
      const record = this.tokens.get(query.input_token);
      if (!record) return send(400, graphError('Invalid OAuth access token.', 190));
      return send(200, {
        data: {
          app_id: record.appId,
          type: record.kind === 'page' ? 'PAGE' : 'USER',
          is_valid: record.valid,
          user_id: this.user.id,
          expires_at: record.expiresAt,
          scopes: ['whatsapp_business_management', 'pages_show_list'],
          granular_scopes: [{ scope: 'whatsapp_business_management', target_ids: this.wabas.map((w) => w.id) }],
        },
      });
    }

    const token = query.access_token ?? (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const record = this.tokens.get(token);
    if (!record?.valid) return send(400, graphError('Error validating access token: Session has expired.', 190));

    if (rest === '/me' && record.kind === 'instagram') {
      return send(200, { user_id: this.instagram.userId, username: this.instagram.username, id: '9990001' });
    }
    if (rest === '/me') {
      const fields = (query.fields ?? 'id,name').split(',');
      return send(200, Object.fromEntries(Object.entries(this.user).filter(([f]) => fields.includes(f))));
    }
    if (rest === '/me/accounts') {
      const linked = (query.fields ?? '').includes('instagram_business_account');
      // Graph's cursor paging: `limit` per page (25 by default), `after` the cursor, `paging.next` while more.
      const limit = Math.min(Number(query.limit ?? 25) || 25, this.maxPageSize);
      const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString()) : 0;
      const slice = this.pages.slice(start, start + limit);
      const data = slice.map((p) => ({
        id: p.id,
        name: p.name,
        access_token: this.mint({ kind: 'page', appId: record.appId, expiresAt: 0, valid: true, pageId: p.id }),
        ...(linked && p.instagram ? { instagram_business_account: p.instagram } : {}),
      }));
      const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
      const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(start + slice.length) } };
      if (start + limit < this.pages.length) {
        const next = new URL(`${this.baseUrl}${path}`);
        for (const [k, v] of Object.entries({ ...query, after: cursor(start + limit) })) next.searchParams.set(k, v);
        paging.next = next.toString();
      }
      return send(200, { data, paging });
    }
    const subscribe = rest.match(/^\/([^/]+)\/subscribed_apps$/);
    if (subscribe && req.method === 'POST') {
      this.subscribed.push(subscribe[1] === 'me' ? this.instagram.userId : subscribe[1]);
      return send(200, { success: true });
    }
    const phones = rest.match(/^\/([^/]+)\/phone_numbers$/);
    if (phones) {
      const waba = this.wabas.find((w) => w.id === phones[1]);
      if (!waba) return send(400, graphError(`Unsupported get request. Object with ID '${phones[1]}' does not exist`, 100));
      return send(200, { data: waba.phones });
    }
    const node = rest.match(/^\/([^/]+)$/);
    if (node) {
      const id = node[1];
      const page = this.pages.find((p) => p.id === id);
      if (page) return send(200, { id, name: page.name });
      if (id === this.instagram.userId) return send(200, { id, username: this.instagram.username });
      const name = this.names.get(id);
      if (name) return send(200, { id, name });
      return send(400, graphError(`Unsupported get request. Object with ID '${id}' does not exist`, 100));
    }
    return send(404, graphError(`Unknown path components: ${rest}`, 2500));
  }
}

const now = () => Math.floor(Date.now() / 1000);

/** Starts a fake (for E2E: on a fixed port, so the server's environment can name it before it starts). */
export async function startMetaOAuthFake(port = 0): Promise<MetaOAuthFake> {
  const fake = new MetaOAuthFake();
  await fake.start(port);
  return fake;
}
