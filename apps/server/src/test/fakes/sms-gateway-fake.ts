import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, readBody, listenOnLoopback } from './loopback.ts';

/**
 * A loopback stand-in for the SMS Gateway for Android 3rd-party API (source: the gateway server's
 * `/3rdparty/v1` handlers and docs, android-sms-gateway/server; third-party-facts.md): `POST
 * {url}/3rdparty/v1/messages` (current) and the deprecated `POST …/message`, Basic login:password, body
 * `{textMessage:{text} | message, phoneNumbers}` → 202 `{id, state, recipients}`; `GET …/messages/{id}`.
 * Wrong credentials → 401; bad body → 400 `{message}`. Failures are scripted with `failNext`, a cut
 * connection with `dropNext`. The account config's baseUrl is `baseUrl`.
 */

export interface SmsGatewayFakeRequest {
  method: string;
  path: string;
  body: unknown;
  authorized: boolean;
}

export interface SmsGatewayFakeMessage {
  id: string;
  text: string;
  phoneNumbers: string[];
}

export interface SmsGatewayFake {
  url: string;
  /** `${url}/3rdparty/v1`: what goes in the account config as baseUrl. */
  baseUrl: string;
  requests: SmsGatewayFakeRequest[];
  messages: SmsGatewayFakeMessage[];
  /** The next `times` sends answer this status (e.g. 400, 500, 429) with `{message}`. */
  failNext(status: number, message?: string, times?: number): void;
  dropNext(times?: number): void;
  close(): Promise<void>;
}

export async function startSmsGatewayFake(options: { login: string; password: string; port?: number }): Promise<SmsGatewayFake> {
  const requests: SmsGatewayFakeRequest[] = [];
  const messages: SmsGatewayFakeMessage[] = [];
  const failures: { status: number; message: string }[] = [];
  let drops = 0;
  const expected = `Basic ${Buffer.from(`${options.login}:${options.password}`).toString('base64')}`;

  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const bytes = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    let body: unknown = null;
    try {
      body = bytes.length ? JSON.parse(bytes.toString('utf8')) : null;
    } catch {
      body = bytes.toString('utf8');
    }
    const authorized = req.headers.authorization === expected;
    requests.push({ method: req.method ?? 'GET', path, body, authorized });
    if (drops > 0) {
      drops -= 1;
      return void res.socket?.destroy();
    }
    const send = (status: number, answer: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(answer));
    };
    if (!authorized) return send(401, { message: 'Unauthorized' });

    if (req.method === 'POST' && (path === '/3rdparty/v1/messages' || path === '/3rdparty/v1/message')) {
      const failure = failures.shift();
      if (failure) return send(failure.status, { message: failure.message });
      const request = (body && typeof body === 'object' ? body : {}) as { message?: unknown; textMessage?: { text?: unknown }; phoneNumbers?: unknown };
      const text = typeof request.message === 'string' ? request.message : typeof request.textMessage?.text === 'string' ? request.textMessage.text : null;
      const phoneNumbers = Array.isArray(request.phoneNumbers) ? request.phoneNumbers.filter((n): n is string => typeof n === 'string') : [];
      if (!text) return send(400, { message: 'message or textMessage is required' });
      if (phoneNumbers.length === 0) return send(400, { message: 'phoneNumbers is required' });
      const message = { id: randomBytes(11).toString('base64url'), text, phoneNumbers };
      messages.push(message);
      return send(202, { id: message.id, state: 'Pending', isHashed: false, isEncrypted: false, recipients: phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Pending' })) });
    }
    const state = /^\/3rdparty\/v1\/messages?\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && state) {
      const message = messages.find((m) => m.id === state[1]);
      if (!message) return send(404, { message: 'message not found' });
      return send(200, { id: message.id, state: 'Sent', recipients: message.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Sent' })) });
    }
    return send(404, { message: 'Not Found' });
  }

  const url = await listenOnLoopback(server, options.port ?? 0);
  return {
    url,
    baseUrl: `${url}/3rdparty/v1`,
    requests,
    messages,
    failNext(status, message = 'Bad Request', times = 1) {
      for (let i = 0; i < times; i += 1) failures.push({ status, message });
    },
    dropNext(times = 1) {
      drops += times;
    },
    close: () => closeServer(server),
  };
}
