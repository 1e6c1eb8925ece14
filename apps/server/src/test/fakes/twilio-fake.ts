import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, readBody, listenOnLoopback } from './loopback.ts';

/**
 * A loopback stand-in for Twilio's REST API (api.twilio.com, 2010-04-01), speaking its real wire format
 * (third-party-facts.md): form-encoded bodies, HTTP Basic `AccountSid:AuthToken`, JSON answers in Twilio's
 * snake_case resource shape, errors as `{ code, message, more_info, status }`. Point TWILIO_API_URL at `url`.
 *
 * Resources: Messages (create, fetch) and Calls (create, fetch, update). Every request is recorded with its
 * parsed form (never its credentials). Failures are scripted per resource with `failNext`, or the connection
 * is cut with `dropNext` (a network error).
 */

export interface TwilioFakeRequest {
  method: string;
  /** Path without query, e.g. /2010-04-01/Accounts/AC…/Messages.json */
  path: string;
  /** The form body (Twilio's PascalCase parameters). */
  form: Record<string, string>;
  /** The AccountSid of the URL. */
  accountSid: string | null;
  /** Whether Basic auth matched a known account (sid of the URL and its token). */
  authorized: boolean;
  /** Every value of every form parameter, for repeated ones such as StatusCallbackEvent. */
  formAll: Record<string, string[]>;
}

export interface TwilioFakeMessage {
  sid: string;
  account_sid: string;
  from: string;
  to: string;
  body: string;
  status: string;
  date_created: string;
}

export interface TwilioFakeCall {
  sid: string;
  account_sid: string;
  from: string;
  to: string;
  status: string;
  /** Parameters of the create (Url, Twiml, StatusCallback, …) and later updates, last value wins. */
  params: Record<string, string>;
  /** Every update's form, in order. */
  updates: Record<string, string>[];
}

export type TwilioResource = 'Messages' | 'Calls';

export interface TwilioFake {
  url: string;
  requests: TwilioFakeRequest[];
  messages: TwilioFakeMessage[];
  calls: TwilioFakeCall[];
  /** Known accounts: AccountSid → Auth Token. */
  accounts: Map<string, string>;
  addAccount(accountSid: string, authToken: string): void;
  /** The next `times` creates/updates of `resource` answer this Twilio error (e.g. 400 / 21211, 429 / 20429, 500). */
  failNext(resource: TwilioResource, error: { status: number; code: number; message?: string }, times?: number): void;
  /** The next `times` requests are cut without an answer (the client sees a network error). */
  dropNext(times?: number): void;
  /**
   * A finished call recording of an account, fetched as Twilio serves it: `GET {RecordingUrl}.mp3` with the
   * account's Basic auth (third-party-facts.md). Answers the RecordingSid and the RecordingUrl (no extension)
   * that a recording status callback carries.
   */
  addRecording(accountSid: string, audio: Buffer): { sid: string; url: string };
  /**
   * Holds the next authorized recording download: `requested` resolves when it arrives, and it is answered
   * only after `release()` — a download in flight while a test changes the database.
   */
  holdNextRecording(): { requested: Promise<void>; release(): void };
  close(): Promise<void>;
}

const ERROR_TEXT: Record<number, string> = {
  20003: 'Authenticate',
  20404: 'The requested resource was not found',
  20429: 'Too Many Requests',
  21211: "The 'To' number is not a valid phone number.",
  21610: 'Attempt to send to unsubscribed recipient',
  21220: 'Unable to update record. Call is not in-progress. Cannot redirect.',
};

export const twilioError = (status: number, code: number, message = ERROR_TEXT[code] ?? 'Error') => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status,
});

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export async function startTwilioFake(options: { accounts?: Record<string, string>; port?: number } = {}): Promise<TwilioFake> {
  const accounts = new Map(Object.entries(options.accounts ?? {}));
  const requests: TwilioFakeRequest[] = [];
  const messages: TwilioFakeMessage[] = [];
  const calls: TwilioFakeCall[] = [];
  const failures: Record<TwilioResource, { status: number; code: number; message?: string }[]> = { Messages: [], Calls: [] };
  let drops = 0;
  const recordings = new Map<string, Buffer>();
  const recordingHolds: { arrived(): void; released: Promise<void> }[] = [];

  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const bytes = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const params = new URLSearchParams(bytes.toString('utf8'));
    const form = Object.fromEntries(params);
    const formAll: Record<string, string[]> = {};
    for (const [name, value] of params) (formAll[name] ??= []).push(value);
    const match = path.match(/^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)(?:\/([^/]+))?\.json$/);
    const accountSid = match?.[1] ?? null;
    const [user, pass] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
    const authorized = accountSid !== null && user === accountSid && accounts.get(accountSid) === pass;
    const recordingMatch = path.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Recordings\/(RE[0-9a-f]+)\.mp3$/);
    if (recordingMatch) {
      const recordingAuthorized = user === recordingMatch[1] && accounts.get(recordingMatch[1]) === pass;
      requests.push({ method: req.method ?? 'GET', path, form, accountSid: recordingMatch[1], authorized: recordingAuthorized, formAll });
      const audio = recordings.get(`${recordingMatch[1]}/${recordingMatch[2]}`);
      if (!recordingAuthorized) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(twilioError(401, 20003)));
      }
      const hold = recordingHolds.shift();
      if (hold) {
        hold.arrived();
        await hold.released;
      }
      if (!audio || req.method !== 'GET') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(twilioError(404, 20404)));
      }
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
      return void res.end(audio);
    }
    requests.push({ method: req.method ?? 'GET', path, form, accountSid, authorized, formAll });

    if (drops > 0) {
      drops -= 1;
      return void res.socket?.destroy();
    }
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (!match) return send(404, twilioError(404, 20404));
    if (!authorized) return send(401, { ...twilioError(401, 20003), detail: 'Your AccountSid or AuthToken was incorrect.' });
    const resource = match[2] as TwilioResource;
    const itemSid = match[3];
    const now = new Date().toUTCString();

    if (req.method === 'POST') {
      const failure = failures[resource].shift();
      if (failure) return send(failure.status, twilioError(failure.status, failure.code, failure.message));
    }

    if (resource === 'Messages') {
      if (req.method === 'POST' && !itemSid) {
        if (!form.To || !form.From || (!form.Body && !form.MediaUrl)) {
          return send(400, twilioError(400, 21602, 'Message body is required.'));
        }
        const message: TwilioFakeMessage = { sid: sid('SM'), account_sid: accountSid!, from: form.From, to: form.To, body: form.Body ?? '', status: 'queued', date_created: now };
        messages.push(message);
        return send(201, messageResource(message));
      }
      const found = messages.find((m) => m.sid === itemSid && m.account_sid === accountSid);
      if (req.method === 'GET' && found) return send(200, messageResource(found));
      return send(404, twilioError(404, 20404));
    }

    // Calls
    if (req.method === 'POST' && !itemSid) {
      if (!form.To || !form.From || (!form.Url && !form.Twiml && !form.ApplicationSid)) {
        return send(400, twilioError(400, 21205, 'Url parameter is required.'));
      }
      const call: TwilioFakeCall = { sid: sid('CA'), account_sid: accountSid!, from: form.From, to: form.To, status: 'queued', params: { ...form }, updates: [] };
      calls.push(call);
      return send(201, callResource(call, now));
    }
    const call = calls.find((c) => c.sid === itemSid && c.account_sid === accountSid);
    if (!call) return send(404, twilioError(404, 20404));
    if (req.method === 'POST') {
      call.updates.push({ ...form });
      Object.assign(call.params, form);
      if (form.Status) call.status = form.Status;
      return send(200, callResource(call, now));
    }
    return send(200, callResource(call, now));
  }

  const url = await listenOnLoopback(server, options.port ?? 0);
  return {
    url,
    requests,
    messages,
    calls,
    accounts,
    addAccount: (accountSid, authToken) => void accounts.set(accountSid, authToken),
    failNext: (resource, error, times = 1) => {
      for (let i = 0; i < times; i += 1) failures[resource].push(error);
    },
    dropNext: (times = 1) => {
      drops += times;
    },
    addRecording: (accountSid, audio) => {
      const recordingSid = sid('RE');
      recordings.set(`${accountSid}/${recordingSid}`, audio);
      return { sid: recordingSid, url: `${url}/2010-04-01/Accounts/${accountSid}/Recordings/${recordingSid}` };
    },
    holdNextRecording: () => {
      let arrived!: () => void;
      let release!: () => void;
      const requested = new Promise<void>((resolve) => (arrived = resolve));
      recordingHolds.push({ arrived, released: new Promise<void>((resolve) => (release = resolve)) });
      return { requested, release };
    },
    close: () => closeServer(server),
  };
}

function messageResource(m: TwilioFakeMessage) {
  return {
    account_sid: m.account_sid,
    api_version: '2010-04-01',
    body: m.body,
    date_created: m.date_created,
    date_sent: null,
    date_updated: m.date_created,
    direction: 'outbound-api',
    error_code: null,
    error_message: null,
    from: m.from,
    messaging_service_sid: null,
    num_media: '0',
    num_segments: String(Math.max(1, Math.ceil(m.body.length / 153))),
    price: null,
    price_unit: 'USD',
    sid: m.sid,
    status: m.status,
    subresource_uris: { media: `/2010-04-01/Accounts/${m.account_sid}/Messages/${m.sid}/Media.json` },
    to: m.to,
    uri: `/2010-04-01/Accounts/${m.account_sid}/Messages/${m.sid}.json`,
  };
}

function callResource(c: TwilioFakeCall, now: string) {
  return {
    account_sid: c.account_sid,
    annotation: null,
    answered_by: null,
    api_version: '2010-04-01',
    caller_name: null,
    date_created: now,
    date_updated: now,
    direction: 'outbound-api',
    duration: null,
    end_time: null,
    forwarded_from: null,
    from: c.from,
    from_formatted: c.from,
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: null,
    price: null,
    price_unit: 'USD',
    sid: c.sid,
    start_time: null,
    status: c.status,
    subresource_uris: { recordings: `/2010-04-01/Accounts/${c.account_sid}/Calls/${c.sid}/Recordings.json` },
    to: c.to,
    to_formatted: c.to,
    trunk_sid: null,
    uri: `/2010-04-01/Accounts/${c.account_sid}/Calls/${c.sid}.json`,
  };
}
