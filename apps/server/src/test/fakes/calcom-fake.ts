import http from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback.ts';

/**
 * A loopback stand-in for Cal.com API v2 in its wire format: `Authorization: Bearer <apiKey>` and the
 * `cal-api-version` header each endpoint requires — GET /v2/slots?eventTypeId&start&end&timeZone
 * (version 2024-09-04) answers `{status: "success", data: {"YYYY-MM-DD": [{start}]}}`; the bookings family takes
 * version 2026-02-25: POST /v2/bookings `{start, eventTypeId, attendee: {name, email, timeZone}}` → 201
 * `{status: "success", data: {id, uid, start, end, status: "accepted", ...}}`; POST /v2/bookings/{uid}/reschedule
 * `{start, reschedulingReason?}` → 201 a new booking (new uid, `rescheduledFromUid`), the old one cancelled;
 * POST /v2/bookings/{uid}/cancel `{cancellationReason?}` → 200 with status "cancelled".
 * Errors are `{status: "error", timestamp, path, error: {code, message}}`.
 */
export interface CalcomFake {
  baseUrl: string;
  apiKey: string;
  /** Free slot starts (ISO, UTC) offered by /slots. */
  slots: string[];
  bookings: {
    uid: string;
    start: string;
    eventTypeId: number;
    attendee: { name: string; email: string; timeZone: string };
    status: 'accepted' | 'cancelled';
    rescheduledFromUid?: string;
    cancellationReason?: string;
  }[];
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
    const raw = (await readBody(req)).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    const version = req.headers['cal-api-version'] as string | undefined;
    fake.requests.push({ method: req.method ?? '', path: url.pathname, version });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return fail(res, 401, 'UnauthorizedException', 'Invalid API Key');
    if (req.method === 'GET' && url.pathname === '/v2/slots') {
      if (fake.hangSlots) return;
      if (version !== '2024-09-04') return fail(res, 400, 'BadRequestException', 'cal-api-version 2024-09-04 is required');
      const start = Date.parse(url.searchParams.get('start') ?? '');
      const end = Date.parse(url.searchParams.get('end') ?? '');
      const taken = new Set(fake.bookings.filter((b) => b.status === 'accepted').map((b) => Date.parse(b.start)));
      const data: Record<string, { start: string }[]> = {};
      for (const s of fake.slots) {
        const t = Date.parse(s);
        if (t < start || t >= end || taken.has(t)) continue;
        (data[s.slice(0, 10)] ??= []).push({ start: s });
      }
      return send(res, 200, { status: 'success', data });
    }
    const BOOKINGS_VERSION = '2026-02-25';
    const view = (b: CalcomFake['bookings'][number]) => {
      const startIso = new Date(b.start).toISOString();
      return { id: fake.bookings.indexOf(b) + 1, uid: b.uid, start: startIso, end: new Date(Date.parse(startIso) + length).toISOString(), status: b.status, eventTypeId: b.eventTypeId, attendees: [b.attendee], ...(b.rescheduledFromUid ? { rescheduledFromUid: b.rescheduledFromUid } : {}) };
    };
    if (req.method === 'POST' && url.pathname.startsWith('/v2/bookings')) {
      if (version !== BOOKINGS_VERSION) return fail(res, 400, 'BadRequestException', `cal-api-version ${BOOKINGS_VERSION} is required`);
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      if (url.pathname === '/v2/bookings') {
        const attendee = body.attendee as CalcomFake['bookings'][number]['attendee'] | undefined;
        if (!attendee?.email) return fail(res, 400, 'BadRequestException', 'attendee.email is required');
        const booking = { uid: `bk_${fake.bookings.length + 1}`, start: String(body.start), eventTypeId: Number(body.eventTypeId), attendee, status: 'accepted' as const };
        fake.bookings.push(booking);
        return send(res, 201, { status: 'success', data: view(booking) });
      }
      const match = /^\/v2\/bookings\/([^/]+)\/(reschedule|cancel)$/.exec(url.pathname);
      const existing = match ? fake.bookings.find((b) => b.uid === decodeURIComponent(match[1]!)) : undefined;
      if (!match || !existing) return fail(res, 404, 'NotFoundException', `Booking not found`);
      if (existing.status === 'cancelled') return fail(res, 400, 'BadRequestException', 'This booking has been cancelled');
      existing.status = 'cancelled';
      if (match[2] === 'cancel') {
        if (typeof body.cancellationReason === 'string') existing.cancellationReason = body.cancellationReason;
        return send(res, 200, { status: 'success', data: view(existing) });
      }
      const moved = { ...existing, uid: `bk_${fake.bookings.length + 1}`, start: String(body.start), status: 'accepted' as const, rescheduledFromUid: existing.uid };
      fake.bookings.push(moved);
      return send(res, 201, { status: 'success', data: view(moved) });
    }
    return fail(res, 404, 'NotFoundException', `Unknown path ${url.pathname}`);
  });
  fake.baseUrl = `${await listenOnLoopback(server)}/v2`;
  fake.close = () => closeServer(server);
  return fake;
}
