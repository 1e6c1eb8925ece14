import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Cal.com API v2 in its wire format: `Authorization: Bearer <apiKey>` and the
 * `cal-api-version` header each endpoint requires — GET /v2/slots?eventTypeId&start&end&timeZone
 * (version 2024-09-04) answers `{status: "success", data: {"YYYY-MM-DD": [{start}]}}`; POST /v2/bookings
 * (version 2024-08-13) takes `{start, eventTypeId, attendee: {name, email, timeZone}}` and answers
 * `{status: "success", data: {uid, start, end, ...}}`. Errors are `{status: "error", error: {code, message}}`.
 */
export interface CalcomFake {
  baseUrl: string;
  apiKey: string;
  /** Free slot starts (ISO, UTC) offered by /slots. */
  slots: string[];
  bookings: { uid: string; start: string; eventTypeId: number; attendee: { name: string; email: string; timeZone: string } }[];
  requests: { method: string; path: string; version: string | undefined }[];
  /** /slots never answers (a calendar that hangs). */
  hangSlots: boolean;
  close(): Promise<void>;
}

export async function startCalcomFake(options: { apiKey?: string; lengthMinutes?: number } = {}): Promise<CalcomFake> {
  const apiKey = options.apiKey ?? 'cal_live_fake_8d2e';
  const length = (options.lengthMinutes ?? 30) * 60_000;
  const fake: CalcomFake = { baseUrl: '', apiKey, slots: [], bookings: [], requests: [], hangSlots: false, close: async () => undefined };
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: http.ServerResponse, status: number, code: string, message: string) => send(res, status, { status: 'error', timestamp: new Date().toISOString(), path: '', error: { code, message } });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const version = req.headers['cal-api-version'] as string | undefined;
    fake.requests.push({ method: req.method ?? '', path: url.pathname, version });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return fail(res, 401, 'UnauthorizedException', 'Invalid API Key');
    if (req.method === 'GET' && url.pathname === '/v2/slots') {
      if (fake.hangSlots) return;
      if (version !== '2024-09-04') return fail(res, 400, 'BadRequestException', 'cal-api-version 2024-09-04 is required');
      const start = Date.parse(url.searchParams.get('start') ?? '');
      const end = Date.parse(url.searchParams.get('end') ?? '');
      const taken = new Set(fake.bookings.map((b) => Date.parse(b.start)));
      const data: Record<string, { start: string }[]> = {};
      for (const s of fake.slots) {
        const t = Date.parse(s);
        if (t < start || t >= end || taken.has(t)) continue;
        (data[s.slice(0, 10)] ??= []).push({ start: s });
      }
      return send(res, 200, { status: 'success', data });
    }
    if (req.method === 'POST' && url.pathname === '/v2/bookings') {
      if (version !== '2024-08-13') return fail(res, 400, 'BadRequestException', 'cal-api-version 2024-08-13 is required');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CalcomFake['bookings'][number];
      if (!body.attendee?.email) return fail(res, 400, 'BadRequestException', 'attendee.email is required');
      const uid = `bk_${fake.bookings.length + 1}`;
      fake.bookings.push({ ...body, uid });
      const startIso = new Date(body.start).toISOString();
      return send(res, 201, { status: 'success', data: { id: fake.bookings.length, uid, start: startIso, end: new Date(Date.parse(startIso) + length).toISOString(), status: 'accepted' } });
    }
    return fail(res, 404, 'NotFoundException', `Unknown path ${url.pathname}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  fake.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return fake;
}
