import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback.ts';

/**
 * A loopback stand-in for the messaging side of Meta's Graph API (third-party-facts.md), one server for every
 * host (point META_GRAPH_URL and INSTAGRAM_GRAPH_URL at `url`):
 *  - `POST /{v}/me/messages` (Instagram, Messenger) → `{recipient_id, message_id}`;
 *  - `POST /{v}/{phone_number_id}/messages` (WhatsApp Cloud) → `{messaging_product, contacts, messages:[{id}]}`;
 *  - `GET /{v}/{page-or-ig-id}/conversations?platform&user_id&fields=messages{…}` and `GET /{v}/{conversation-id}/messages`,
 *    newest first, paged with `paging.next` links that carry the token in the query as Meta's do;
 *  - `GET /{v}/{id}?fields=name,username` for prospects' names;
 *  - WhatsApp media (Cloud API Media reference): `GET /{v}/{media-id}` → `{messaging_product, url, mime_type,
 *    sha256, file_size, id}`, and `GET {url}` with the same Bearer token → the bytes (401 without it);
 *  - Instagram/Messenger attachment CDN files (`cdnFile`), served at a plain URL as Meta's signed CDN URLs are.
 * WhatsApp sends take `to` (a phone number) or `recipient` (a business-scoped user id, Meta's BSUID guide).
 * The token is accepted as a Bearer header or an `access_token` query parameter; an unknown one answers code 190.
 * Errors are Graph's `{"error":{message,type,code,error_subcode,fbtrace_id}}`. Failures are scripted with
 * `failNext` (sends or history), or the connection is cut with `dropNext`.
 */

export interface GraphFakeRequest {
  method: string;
  path: string;
  /** Query parameters, without access_token. */
  query: Record<string, string>;
  /** Parsed JSON body (POST), else null. */
  body: unknown;
  /** The token the request carried (so tests can check the account's credentials were used). */
  token: string | null;
}

export interface GraphFailure {
  code: number;
  subcode?: number;
  message?: string;
  type?: string;
  /** HTTP status; by default 500 for codes 1 and 2, else 400 (Graph answers most errors, rate limits included, with 400). */
  status?: number;
}

export interface GraphThreadMessage {
  id: string;
  message: string;
  /** Who wrote it: the prospect's id, or the page / IG account id. */
  fromId: string;
  createdTime: Date;
}

export interface MetaGraphFake {
  url: string;
  requests: GraphFakeRequest[];
  tokens: Set<string>;
  /** Names for `/{id}?fields=name,username`. */
  names: Map<string, { name?: string; username?: string }>;
  /** Messages per page of the history edges (small, so tests exercise paging). */
  pageSize: number;
  /** Adds one conversation between the page/IG account and the user (a user may have several); messages oldest first. */
  addConversation(pageId: string, userId: string, messages: GraphThreadMessage[]): string;
  /** Successful sends, in order: the JSON body and the id answered. */
  sends(): { path: string; body: Record<string, unknown>; token: string | null }[];
  /** The next `times` sends (or history reads) fail with this Graph error; `after` lets that many succeed first. */
  failNext(target: 'send' | 'history', failure: GraphFailure, times?: number, options?: { after?: number }): void;
  /** The next `times` requests are cut without an answer (the client sees a network error). */
  dropNext(times?: number): void;
  /** Forgets the recorded requests and sends and any scripted failure not used yet. */
  reset(): void;
  /** A WhatsApp media object: its id for a webhook's `audio.id` / `image.id`. */
  addMedia(bytes: Buffer, mimeType: string): string;
  /** An Instagram/Messenger attachment file: its CDN URL for a webhook's `attachments[].payload.url`. */
  cdnFile(bytes: Buffer, mimeType: string): string;
  close(): Promise<void>;
}

const DEFAULT_MESSAGES: Record<number, string> = {
  1: 'An unknown error has occurred.',
  2: 'An unexpected error has occurred. Please retry your request later.',
  4: 'Application request limit reached',
  10: 'This message is sent outside of allowed window.',
  17: 'User request limit reached',
  32: 'Page request limit reached',
  100: 'Invalid parameter',
  190: 'Error validating access token: Session has expired.',
  200: 'Permissions error',
  551: 'This person isn\'t available right now.',
  613: 'Calls to this api have exceeded the rate limit.',
  131047: 'Re-engagement message',
};

export const graphErrorBody = (failure: GraphFailure) => ({
  error: {
    message: failure.message ?? DEFAULT_MESSAGES[failure.code] ?? 'An error occurred.',
    type: failure.type ?? (failure.code === 190 || failure.code === 10 ? 'OAuthException' : 'GraphMethodException'),
    code: failure.code,
    ...(failure.subcode ? { error_subcode: failure.subcode } : {}),
    fbtrace_id: `A${randomBytes(8).toString('hex')}`,
  },
});

const statusOf = (failure: GraphFailure) => failure.status ?? (failure.code === 1 || failure.code === 2 ? 500 : 400);
const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;

export async function startMetaGraphFake(options: { tokens?: string[]; port?: number; pageSize?: number } = {}): Promise<MetaGraphFake> {
  const requests: GraphFakeRequest[] = [];
  const tokens = new Set(options.tokens ?? []);
  const names = new Map<string, { name?: string; username?: string }>();
  const conversations: { id: string; pageId: string; userId: string; messages: GraphThreadMessage[] }[] = [];
  const failures: Record<'send' | 'history', (GraphFailure | null)[]> = { send: [], history: [] };
  const sent: { path: string; body: Record<string, unknown>; token: string | null }[] = [];
  const media = new Map<string, { bytes: Buffer; mimeType: string }>();
  let drops = 0;

  const fake: MetaGraphFake = {
    url: '',
    requests,
    tokens,
    names,
    pageSize: options.pageSize ?? 2,
    addConversation(pageId, userId, messages) {
      const id = `t_${randomBytes(6).toString('hex')}`;
      conversations.push({ id, pageId, userId, messages });
      return id;
    },
    sends: () => sent,
    addMedia(bytes, mimeType) {
      const id = String(100000000000000 + media.size + Math.floor(Math.random() * 1e9));
      media.set(id, { bytes, mimeType });
      return id;
    },
    cdnFile(bytes, mimeType) {
      const id = `cdn${randomBytes(6).toString('hex')}`;
      media.set(id, { bytes, mimeType });
      return `${fake.url}/cdn/${id}?oh=signed&oe=expires`;
    },
    failNext(target, failure, times = 1, options = {}) {
      // A null entry lets one request through: the scripted failures follow it.
      for (let i = 0; i < (options.after ?? 0); i += 1) failures[target].push(null);
      for (let i = 0; i < times; i += 1) failures[target].push(failure);
    },
    dropNext(times = 1) {
      drops += times;
    },
    reset() {
      requests.length = 0;
      sent.length = 0;
      failures.send.length = 0;
      failures.history.length = 0;
      drops = 0;
    },
    close: () => closeServer(server),
  };

  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = (await readBody(req)).toString('utf8');
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const token = url.searchParams.get('access_token') ?? bearer;
    const query = Object.fromEntries([...url.searchParams].filter(([key]) => key !== 'access_token'));
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname, query, body, token });

    if (drops > 0) {
      drops -= 1;
      return void res.socket?.destroy();
    }
    const send = (status: number, answer: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(answer));
    };
    const fail = (failure: GraphFailure) => send(statusOf(failure), graphErrorBody(failure));

    const file = /^\/(cdn|media-download)\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && file) {
      const found = media.get(file[2]);
      // The WhatsApp download URL needs the Bearer token (Cloud API: "Download media"); the CDN URL is signed.
      if (file[1] === 'media-download' && (!token || !tokens.has(token))) {
        res.writeHead(401, { 'content-type': 'text/plain' });
        return void res.end('Unauthorized');
      }
      if (!found) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return void res.end('Not Found');
      }
      res.writeHead(200, { 'content-type': found.mimeType, 'content-length': found.bytes.length });
      return void res.end(found.bytes);
    }
    const versioned = /^\/(v\d+\.\d+)(\/.*)$/.exec(url.pathname);
    if (!versioned) return fail({ code: 2500, message: `Unknown path components: ${url.pathname}`, type: 'OAuthException', status: 400 });
    const [, version, rest] = versioned;
    if (!token || !tokens.has(token)) return fail({ code: 190, message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException' });

    const messagesEdge = /^\/([^/]+)\/messages$/.exec(rest);
    if (method === 'POST' && messagesEdge) {
      const scripted = failures.send.shift();
      if (scripted) return fail(scripted);
      const payload = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
      if (messagesEdge[1] === 'me') {
        const recipient = (payload.recipient as { id?: string } | undefined)?.id;
        const text = (payload.message as { text?: string } | undefined)?.text;
        const type = payload.messaging_type;
        if (!recipient) return fail({ code: 100, message: '(#100) The parameter recipient is required' });
        if (typeof text !== 'string' || !text) return fail({ code: 100, message: '(#100) param message must be non-empty.' });
        if (text.length > 2000) return fail({ code: 100, message: '(#100) Length of param message[text] must be less than or equal to 2000' });
        if (type !== 'RESPONSE' && type !== 'UPDATE' && type !== 'MESSAGE_TAG') return fail({ code: 100, message: '(#100) param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}' });
        if (type === 'MESSAGE_TAG' && typeof payload.tag !== 'string') return fail({ code: 100, message: '(#100) Tag is required for MESSAGE_TAG messaging type' });
        const messageId = newId('m_');
        sent.push({ path: url.pathname, body: payload, token });
        return send(200, { recipient_id: recipient, message_id: messageId });
      }
      // WhatsApp Cloud: /{phone_number_id}/messages
      if (payload.messaging_product !== 'whatsapp') return fail({ code: 100, message: '(#100) The parameter messaging_product is required.' });
      const to = payload.to ?? payload.recipient;
      if (typeof to !== 'string' || !to) return fail({ code: 100, message: '(#100) The parameter to is required.' });
      if (payload.to !== undefined && !/^\+?\d+$/.test(to)) return fail({ code: 100, message: '(#100) Invalid parameter: to must be a phone number; use recipient for a business-scoped user id.' });
      if (payload.type === 'text') {
        const text = (payload.text as { body?: string } | undefined)?.body;
        if (typeof text !== 'string' || !text) return fail({ code: 100, message: '(#100) The parameter text[body] is required.' });
        if (text.length > 4096) return fail({ code: 100, message: '(#100) Param text[body] must be at most 4096 characters long.' });
      } else if (payload.type === 'template') {
        const template = payload.template as { name?: string; language?: { code?: string } } | undefined;
        if (!template?.name || !template.language?.code) return fail({ code: 100, message: '(#100) The parameter template[name] and template[language][code] are required.' });
      } else {
        return fail({ code: 100, message: `(#100) Unsupported message type ${String(payload.type)}` });
      }
      sent.push({ path: url.pathname, body: payload, token });
      const contact = payload.to !== undefined ? { input: to, wa_id: to.replace(/^\+/, '') } : { input: to, user_id: to };
      return send(200, { messaging_product: 'whatsapp', contacts: [contact], messages: [{ id: `wamid.${randomBytes(18).toString('base64url')}` }] });
    }

    if (method === 'GET') {
      const base = `http://${req.headers.host}/${version}`;
      const history = /^\/([^/]+)\/(conversations|messages)$/.exec(rest);
      if (history) {
        const scripted = failures.history.shift();
        if (scripted) return fail(scripted);
        const fields = 'id,message,from,created_time';
        const pageOfMessages = (conversation: (typeof conversations)[number], offset: number) => {
          const newestFirst = [...conversation.messages].reverse();
          const slice = newestFirst.slice(offset, offset + fake.pageSize);
          const data = slice.map((m) => ({ id: m.id, message: m.message, from: { id: m.fromId }, created_time: m.createdTime.toISOString().replace(/\.\d{3}Z$/, '+0000') }));
          const more = offset + fake.pageSize < newestFirst.length;
          return {
            data,
            paging: {
              cursors: { before: Buffer.from(String(offset)).toString('base64'), after: Buffer.from(String(offset + slice.length)).toString('base64') },
              ...(more ? { next: `${base}/${conversation.id}/messages?fields=${encodeURIComponent(fields)}&limit=${fake.pageSize}&access_token=${token}&after=${Buffer.from(String(offset + fake.pageSize)).toString('base64')}` } : {}),
            },
          };
        };
        if (history[2] === 'messages') {
          const conversation = conversations.find((c) => c.id === history[1]);
          if (!conversation) return fail({ code: 100, message: `(#100) Unsupported get request. Object with ID '${history[1]}' does not exist` });
          const offset = Number(Buffer.from(query.after ?? '', 'base64').toString() || 0);
          return send(200, pageOfMessages(conversation, offset));
        }
        const platform = query.platform;
        if (platform !== 'instagram' && platform !== 'messenger') return fail({ code: 100, message: '(#100) platform must be one of {instagram, messenger}' });
        const mine = conversations.filter((c) => c.pageId === history[1] && (!query.user_id || c.userId === query.user_id));
        // One conversation per page of the list, so the list's own paging is exercised too.
        const index = Number(Buffer.from(query.after ?? '', 'base64').toString() || 0);
        const current = mine[index];
        const next = index + 1 < mine.length
          ? `${base}/${history[1]}/conversations?platform=${platform}&user_id=${encodeURIComponent(query.user_id ?? '')}&fields=${encodeURIComponent(query.fields ?? '')}&access_token=${token}&after=${Buffer.from(String(index + 1)).toString('base64')}`
          : undefined;
        const wantsMessages = (query.fields ?? '').startsWith('messages');
        return send(200, {
          data: current ? [{ id: current.id, ...(wantsMessages ? { messages: pageOfMessages(current, 0) } : {}) }] : [],
          paging: { cursors: { before: 'MA==', after: Buffer.from(String(index + 1)).toString('base64') }, ...(next ? { next } : {}) },
        });
      }
      const node = /^\/([^/]+)$/.exec(rest);
      const mediaObject = node ? media.get(node[1]) : undefined;
      if (node && mediaObject) {
        return send(200, {
          messaging_product: 'whatsapp',
          url: `http://${req.headers.host}/media-download/${node[1]}`,
          mime_type: mediaObject.mimeType,
          sha256: createHash('sha256').update(mediaObject.bytes).digest('hex'),
          file_size: mediaObject.bytes.length,
          id: node[1],
        });
      }
      if (node) {
        const known = names.get(node[1]);
        if (!known) return fail({ code: 100, message: `(#100) Unsupported get request. Object with ID '${node[1]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.` });
        const wanted = (query.fields ?? 'id,name').split(',');
        return send(200, { id: node[1], ...Object.fromEntries(Object.entries(known).filter(([field]) => wanted.includes(field))) });
      }
    }
    return fail({ code: 2500, message: `Unknown path components: ${rest}`, type: 'OAuthException', status: 400 });
  }

  fake.url = await listenOnLoopback(server, options.port ?? 0);
  return fake;
}
