import { CalendarError, type CalendarProvider, type Slot } from './calendar.ts';

/**
 * Cal.com API v2 (reference/third-party-facts.md): `Authorization: Bearer <apiKey>` and a `cal-api-version`
 * header per endpoint — GET /slots (2024-09-04: `{status, data: {"YYYY-MM-DD": [{start}]}}`) and POST /bookings
 * (2024-08-13: `{start, eventTypeId, attendee: {name, email, timeZone}}` → `{status, data: {uid, start, end}}`).
 */
const SLOTS_VERSION = '2024-09-04';
const BOOKINGS_VERSION = '2024-08-13';
const TIMEOUT_MS = 10_000;

export function createCalcomCalendar(baseUrl: string, apiKey: string, eventTypeId: number, lengthMinutes = 30): CalendarProvider {
  const base = baseUrl.replace(/\/$/, '');
  async function call<T>(path: string, version: string, init: { method: 'GET' | 'POST'; body?: unknown }): Promise<T> {
    let response: Response;
    try {
      response = await fetch(base + path, {
        method: init.method,
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'cal-api-version': version,
          Accept: 'application/json',
          ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new CalendarError('Cal.com could not be reached.');
    }
    const text = await response.text();
    let json: { status?: string; data?: unknown; error?: { message?: string } } = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new CalendarError(`Cal.com answered ${response.status} with something that is not JSON.`);
    }
    if (!response.ok || json.status === 'error') {
      const detail = json.error?.message ? `: ${String(json.error.message).slice(0, 200)}` : '';
      throw new CalendarError(`Cal.com answered ${response.status}${detail}`);
    }
    return json.data as T;
  }

  return {
    kind: 'calcom',
    async freeSlots(from, to, timeZone) {
      const query = new URLSearchParams({ eventTypeId: String(eventTypeId), start: from.toISOString(), end: to.toISOString(), timeZone });
      const days = await call<Record<string, { start: string; end?: string }[]>>(`/slots?${query}`, SLOTS_VERSION, { method: 'GET' });
      const slots: Slot[] = [];
      for (const list of Object.values(days ?? {})) {
        for (const s of list) {
          const start = new Date(s.start);
          slots.push({ start: start.toISOString(), end: s.end ? new Date(s.end).toISOString() : new Date(start.getTime() + lengthMinutes * 60_000).toISOString() });
        }
      }
      return slots.sort((a, b) => a.start.localeCompare(b.start));
    },
    async book(slot, attendee) {
      if (!attendee.email) throw new CalendarError('Cal.com needs the attendee\'s email address to book; ask the prospect for it.');
      const data = await call<{ uid?: string; id?: number; start?: string; end?: string }>('/bookings', BOOKINGS_VERSION, {
        method: 'POST',
        body: { start: new Date(slot.start).toISOString(), eventTypeId, attendee: { name: attendee.name, email: attendee.email, timeZone: attendee.timeZone } },
      });
      const externalId = data?.uid ?? (data?.id === undefined ? undefined : String(data.id));
      if (!externalId) throw new CalendarError('Cal.com confirmed no booking id.');
      return { externalId, start: data.start ? new Date(data.start).toISOString() : slot.start, end: data.end ? new Date(data.end).toISOString() : slot.end };
    },
  };
}
