import http from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback.ts';

/**
 * A loopback stand-in for GoHighLevel API v2 (reference/third-party-facts.md "GoHighLevel API v2"), in its
 * wire format: `Authorization: Bearer <token>` and `Version: 2021-07-28` required on every call;
 * GET /opportunities/pipelines?locationId=, GET /opportunities/search?location_id&pipeline_id&pipeline_stage_id
 * &contact_id&limit&startAfter&startAfterId (cursor = the last item's timestamp and id; meta total, startAfter,
 * startAfterId, currentPage, nextPage, prevPage), POST /contacts/{id}/notes {body}, PUT /opportunities/{id}
 * {pipelineStageId}. Errors are `{ statusCode, message }` (a list of messages for 422), with the 429 of its
 * rate limit (100 requests per 10 s per location) carrying the X-RateLimit-* headers.
 */
export interface GhlFakeContact {
  id: string;
  name: string;
  phone: string | null;
  email?: string | null;
}

export interface GhlFakeOpportunity {
  id: string;
  name: string;
  pipelineId: string;
  pipelineStageId: string;
  contact: GhlFakeContact;
  /** Cursor key (GoHighLevel pages by date added, then id). */
  createdAt: number;
}

export interface GhlFakePipeline {
  id: string;
  name: string;
  stages: { id: string; name: string }[];
}

export interface GhlFakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface GhlFake {
  baseUrl: string;
  apiKey: string;
  locationId: string;
  pipelines: GhlFakePipeline[];
  opportunities: GhlFakeOpportunity[];
  /** Notes added per contact id. */
  notes: Map<string, string[]>;
  /** PUT /contacts/{id} bodies, in order (DND writes of opt-outs). */
  contactUpdates: { contactId: string; body: unknown }[];
  requests: GhlFakeRequest[];
  /** Calendars (Version 2021-04-15): free slot starts (ISO) offered by GET /calendars/{id}/free-slots, per calendar id. */
  calendarSlots: Map<string, string[]>;
  /** Appointments made with POST /calendars/events/appointments, changed by PUT. */
  appointments: { id: string; calendarId: string; locationId: string; contactId: string; startTime: string; endTime?: string; title?: string; appointmentStatus: string }[];
  /** The next `times` requests answer this status with GoHighLevel's body (and rate-limit headers for 429). */
  failNext(status: number, times?: number, options?: { retryAfterIntervalMs?: number; path?: string }): void;
  /** Environment for a server whose bare "GHL" types use this fake. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export interface GhlFakeOptions {
  apiKey?: string;
  locationId?: string;
  /** Requests per window before 429 (GoHighLevel: 100 per 10 s). */
  rateLimitMax?: number;
  rateLimitIntervalMs?: number;
  /** Opportunities in the first stage of the first pipeline (default 25: three pages of 10). */
  seedCount?: number;
}

export const GHL_FAKE_API_KEY = 'pit-fake-ghl-token-7f3a9c';

/** The fake's pipelines: "Solar leads" with four stages and "Roof repairs" with one. */
export const GHL_FAKE_PIPELINES: readonly GhlFakePipeline[] = [
  {
    id: 'pl-solar',
    name: 'Solar leads',
    stages: [
      { id: 'st-new', name: 'New lead' },
      { id: 'st-contacted', name: 'Contacted' },
      { id: 'st-appointment', name: 'Appointment set' },
      { id: 'st-human', name: 'Needs follow-up' },
    ],
  },
  { id: 'pl-roof', name: 'Roof repairs', stages: [{ id: 'st-roof-new', name: 'New' }] },
];

/** Demo data: the pipelines above; the first stage of "Solar leads" holds `count` contacts, every 7th without a phone. */
function seed(count: number): { pipelines: GhlFakePipeline[]; opportunities: GhlFakeOpportunity[] } {
  const pipelines = structuredClone(GHL_FAKE_PIPELINES) as GhlFakePipeline[];
  const base = Date.UTC(2026, 9, 1);
  const opportunities: GhlFakeOpportunity[] = [];
  for (let i = 1; i <= count; i += 1) {
    const n = String(i).padStart(2, '0');
    opportunities.push({
      id: `opp-${n}`,
      name: `Lead ${n}`,
      pipelineId: 'pl-solar',
      pipelineStageId: 'st-new',
      contact: { id: `ct-${n}`, name: `Contact ${n}`, phone: i % 7 === 0 ? null : `+1555000${String(i).padStart(4, '0')}`, email: `contact${n}@example.com` },
      createdAt: base + i * 60_000,
    });
  }
  opportunities.push({
    id: 'opp-contacted',
    name: 'Already contacted',
    pipelineId: 'pl-solar',
    pipelineStageId: 'st-contacted',
    contact: { id: 'ct-contacted', name: 'Casey Contacted', phone: '+15559990001' },
    createdAt: base,
  });
  opportunities.push({
    id: 'opp-roof',
    name: 'Roof',
    pipelineId: 'pl-roof',
    pipelineStageId: 'st-roof-new',
    contact: { id: 'ct-roof', name: 'Rory Roof', phone: '+15559990002' },
    createdAt: base,
  });
  return { pipelines, opportunities };
}

export async function startGhlFake(options: GhlFakeOptions = {}): Promise<GhlFake> {
  const apiKey = options.apiKey ?? GHL_FAKE_API_KEY;
  const locationId = options.locationId ?? 'loc-fake-1';
  const max = options.rateLimitMax ?? 100;
  const intervalMs = options.rateLimitIntervalMs ?? 10_000;
  const { pipelines, opportunities } = seed(options.seedCount ?? 25);
  const notes = new Map<string, string[]>();
  const contactUpdates: { contactId: string; body: unknown }[] = [];
  const requests: GhlFakeRequest[] = [];
  const fake: Pick<GhlFake, 'calendarSlots' | 'appointments'> = { calendarSlots: new Map(), appointments: [] };
  const failures: { status: number; retryAfterIntervalMs?: number; path?: string }[] = [];
  let windowStart = Date.now();
  let windowCount = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, status: number, message: string | string[], headers: Record<string, string> = {}) => {
    const names: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 422: 'Unprocessable Entity', 429: 'Too Many Requests' };
    send(res, status, { statusCode: status, message, ...(names[status] && status !== 401 ? { error: names[status] } : {}) }, headers);
  };
  const rateHeaders = (remaining: number, interval: number) => ({
    'x-ratelimit-limit-daily': '200000',
    'x-ratelimit-daily-remaining': '199000',
    'x-ratelimit-interval-milliseconds': String(interval),
    'x-ratelimit-max': String(max),
    'x-ratelimit-remaining': String(Math.max(0, remaining)),
  });

  // GoHighLevel calendars, Version 2021-04-15 (free slots by date key with a traceId beside them; unwrapped appointments).
  const calendars = (method: string, url: URL, query: Record<string, string>, body: unknown, res: http.ServerResponse) => {
    const version = requests.at(-1)?.headers.version;
    if (version !== '2021-04-15') return error(res, 400, 'Version header was not found');
    const slotsMatch = /^\/calendars\/([^/]+)\/free-slots$/.exec(url.pathname);
    if (method === 'GET' && slotsMatch) {
      const start = Number(query.startDate);
      const end = Number(query.endDate);
      if (!Number.isFinite(start) || !Number.isFinite(end)) return error(res, 422, ['startDate must be a number']);
      const taken = new Set(fake.appointments.filter((a) => a.appointmentStatus !== 'cancelled').map((a) => Date.parse(a.startTime)));
      const days: Record<string, unknown> = { traceId: 'trace-fake' };
      for (const s of fake.calendarSlots.get(slotsMatch[1]!) ?? []) {
        const t = Date.parse(s);
        if (t < start || t > end || taken.has(t)) continue;
        ((days[s.slice(0, 10)] ??= { slots: [] }) as { slots: string[] }).slots.push(s);
      }
      return send(res, 200, days);
    }
    const b = (body ?? {}) as Record<string, string>;
    if (method === 'POST' && url.pathname === '/calendars/events/appointments') {
      if (!b.calendarId || !b.locationId || !b.contactId || !b.startTime) return error(res, 422, ['calendarId, locationId, contactId and startTime are required']);
      if (b.locationId !== locationId) return error(res, 403, 'The token does not have access to this location.');
      const appointment = { id: `appt_${fake.appointments.length + 1}`, calendarId: b.calendarId, locationId: b.locationId, contactId: b.contactId, startTime: b.startTime, endTime: b.endTime, title: b.title, appointmentStatus: 'confirmed' };
      fake.appointments.push(appointment);
      return send(res, 200, { ...appointment, isRecurring: false });
    }
    const apptMatch = /^\/calendars\/events\/appointments\/([^/]+)$/.exec(url.pathname);
    const appointment = apptMatch ? fake.appointments.find((a) => a.id === apptMatch[1]) : undefined;
    if (method === 'PUT' && appointment) {
      Object.assign(appointment, Object.fromEntries(Object.entries(b).filter(([k]) => ['startTime', 'endTime', 'title', 'appointmentStatus'].includes(k))));
      return send(res, 200, { ...appointment, isRecurring: false });
    }
    return error(res, 404, `Cannot ${method} ${url.pathname}`);
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = (await readBody(req)).toString('utf8');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      return error(res, 400, 'Unexpected token in JSON');
    }
    const query = Object.fromEntries(url.searchParams);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers, body });

    if (req.headers.authorization !== `Bearer ${apiKey}`) return error(res, 401, 'Invalid JWT');
    if (url.pathname.startsWith('/calendars/')) return calendars(req.method ?? 'GET', url, query, body, res);
    if (req.headers.version !== '2021-07-28') return error(res, 400, 'Version header was not found');

    const now = Date.now();
    if (now - windowStart >= intervalMs) {
      windowStart = now;
      windowCount = 0;
    }
    windowCount += 1;
    const failureIndex = failures.findIndex((f) => !f.path || f.path === url.pathname);
    const injected = failureIndex < 0 ? undefined : failures.splice(failureIndex, 1)[0];
    if (injected) {
      if (injected.status === 429) {
        return error(res, 429, 'Too many requests', rateHeaders(0, injected.retryAfterIntervalMs ?? intervalMs));
      }
      const messages: Record<number, string | string[]> = { 401: 'Invalid JWT', 422: ['pipeline_id must be a valid id'], 500: 'Internal server error' };
      return error(res, injected.status, messages[injected.status] ?? 'Error');
    }
    if (windowCount > max) return error(res, 429, 'Too many requests', rateHeaders(0, intervalMs - (now - windowStart)));
    const headers = rateHeaders(max - windowCount, intervalMs);

    if (req.method === 'GET' && url.pathname === '/opportunities/pipelines') {
      if (!query.locationId) return error(res, 422, ['locationId should not be empty', 'locationId must be a string']);
      if (query.locationId !== locationId) return error(res, 403, 'The token does not have access to this location.');
      return send(res, 200, { pipelines: pipelines.map((p) => ({ ...p, locationId, showInFunnel: true, showInPieChart: true })) }, headers);
    }
    if (req.method === 'GET' && url.pathname === '/opportunities/search') {
      if (!query.location_id) return error(res, 422, ['location_id should not be empty', 'location_id must be a string']);
      if (query.location_id !== locationId) return error(res, 403, 'The token does not have access to this location.');
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return error(res, 422, ['limit must not be greater than 100']);
      if (query.pipeline_id && !pipelines.some((p) => p.id === query.pipeline_id)) return error(res, 422, ['pipeline_id must be a valid id']);
      const matching = opportunities
        .filter((o) => !query.pipeline_id || o.pipelineId === query.pipeline_id)
        .filter((o) => !query.pipeline_stage_id || o.pipelineStageId === query.pipeline_stage_id)
        .filter((o) => !query.contact_id || o.contact.id === query.contact_id)
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
      let start = 0;
      if (query.startAfter !== undefined || query.startAfterId !== undefined) {
        const after = Number(query.startAfter);
        start = matching.findIndex((o) => o.createdAt > after || (o.createdAt === after && o.id > (query.startAfterId ?? '')));
        if (start < 0) start = matching.length;
      }
      const page = matching.slice(start, start + limit);
      const last = page.at(-1);
      const currentPage = Math.floor(start / limit) + 1;
      const hasMore = start + limit < matching.length;
      return send(
        res,
        200,
        {
          opportunities: page.map((o) => ({
            id: o.id,
            name: o.name,
            monetaryValue: 0,
            pipelineId: o.pipelineId,
            pipelineStageId: o.pipelineStageId,
            status: 'open',
            source: null,
            lastStatusChangeAt: new Date(o.createdAt).toISOString(),
            createdAt: new Date(o.createdAt).toISOString(),
            contact: { id: o.contact.id, name: o.contact.name, companyName: null, email: o.contact.email ?? null, phone: o.contact.phone, tags: [] },
          })),
          meta: {
            total: matching.length,
            nextPageUrl: hasMore ? `${baseUrl}/opportunities/search?startAfter=${last?.createdAt}&startAfterId=${last?.id}` : null,
            startAfterId: last?.id ?? null,
            startAfter: last?.createdAt ?? null,
            currentPage,
            nextPage: hasMore ? currentPage + 1 : null,
            prevPage: currentPage > 1 ? currentPage - 1 : null,
          },
          aggregations: {},
        },
        headers,
      );
    }
    const noteMatch = /^\/contacts\/([^/]+)\/notes$/.exec(url.pathname);
    if (req.method === 'POST' && noteMatch) {
      const contactId = decodeURIComponent(noteMatch[1]);
      const noteBody = (body as { body?: unknown } | null)?.body;
      if (typeof noteBody !== 'string' || !noteBody) return error(res, 422, ['body must be a string']);
      if (!opportunities.some((o) => o.contact.id === contactId)) return error(res, 400, 'Contact not found');
      notes.set(contactId, [...(notes.get(contactId) ?? []), noteBody]);
      return send(res, 201, { note: { id: `note-${requests.length}`, body: noteBody, userId: null, dateAdded: new Date().toISOString(), contactId } }, headers);
    }
    const contactMatch = /^\/contacts\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'PUT' && contactMatch) {
      const contactId = decodeURIComponent(contactMatch[1]);
      if (!opportunities.some((o) => o.contact.id === contactId)) return error(res, 400, 'Contact not found');
      contactUpdates.push({ contactId, body });
      return send(res, 200, { succeded: true, contact: { id: contactId } }, headers);
    }
    const oppMatch = /^\/opportunities\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'PUT' && oppMatch && oppMatch[1] !== 'search' && oppMatch[1] !== 'pipelines') {
      const opportunity = opportunities.find((o) => o.id === decodeURIComponent(oppMatch[1]));
      if (!opportunity) return error(res, 400, 'Opportunity not found');
      const stageId = (body as { pipelineStageId?: unknown } | null)?.pipelineStageId;
      const pipeline = pipelines.find((p) => p.id === opportunity.pipelineId);
      if (typeof stageId !== 'string' || !pipeline?.stages.some((s) => s.id === stageId)) return error(res, 422, ['pipelineStageId must be a stage of the pipeline']);
      opportunity.pipelineStageId = stageId;
      return send(res, 200, { opportunity: { id: opportunity.id, name: opportunity.name, pipelineId: opportunity.pipelineId, pipelineStageId: stageId, status: 'open' } }, headers);
    }
    return error(res, 404, `Cannot ${req.method} ${url.pathname}`);
  });
  const baseUrl = await listenOnLoopback(server);
  return {
    baseUrl,
    apiKey,
    locationId,
    pipelines,
    opportunities,
    notes,
    contactUpdates,
    requests,
    calendarSlots: fake.calendarSlots,
    appointments: fake.appointments,
    failNext(status, times = 1, failOptions = {}) {
      for (let i = 0; i < times; i += 1) failures.push({ status, ...failOptions });
    },
    env: () => ({ GHL_API_URL: baseUrl, GHL_API_KEY: apiKey, GHL_LOCATION_ID: locationId }),
    close: () => closeServer(server),
  };
}
