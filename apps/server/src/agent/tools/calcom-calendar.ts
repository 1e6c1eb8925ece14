import { type BookedMeeting, CalendarError, type CalendarProvider, type Slot } from './calendar.ts';

/**
 * Cal.com API v2 (reference/third-party-facts.md, cal.com/docs/api-reference/v2): `Authorization: Bearer <apiKey>`
 * and a `cal-api-version` header per endpoint family (a missing or wrong one silently routes to an older version):
 * - GET /slots, version 2024-09-04: `{status, data: {"YYYY-MM-DD": [{start}]}}`;
 * - the bookings family, version 2026-02-25 (the docs' "Must be set to 2026-02-25"): POST /bookings
 *   `{start, eventTypeId, attendee: {name, email, timeZone}}` → 201 `{status, data: {id, uid, start, end, status}}`;
 *   POST /bookings/{uid}/reschedule `{start, reschedulingReason?}` → 201 a NEW booking (new `uid`,
 *   `rescheduledFromUid`); POST /bookings/{uid}/cancel `{cancellationReason?}` → 200 (status "cancelled").
 */
const SLOTS_VERSION = '2024-09-04';
const BOOKINGS_VERSION = '2026-02-25';
const TIMEOUT_MS = 10_000;

type BookingData = { uid?: string; id?: number; start?: string; end?: string } | undefined;

function meetingOf(data: BookingData, slot: Slot): BookedMeeting {
  const externalId = data?.uid ?? (data?.id === undefined ? undefined : String(data.id));
  if (!externalId) throw new CalendarError('Cal.com confirmed no booking id.');
  return { externalId, start: data?.start ? new Date(data.start).toISOString() : slot.start, end: data?.end ? new Date(data.end).toISOString() : slot.end };
}

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
      const data = await call<BookingData>('/bookings', BOOKINGS_VERSION, {
        method: 'POST',
        body: { start: new Date(slot.start).toISOString(), eventTypeId, attendee: { name: attendee.name, email: attendee.email, timeZone: attendee.timeZone } },
      });
      return meetingOf(data, slot);
    },
    async reschedule(externalId, slot, reason) {
      const data = await call<BookingData>(`/bookings/${encodeURIComponent(externalId)}/reschedule`, BOOKINGS_VERSION, {
        method: 'POST',
        body: { start: new Date(slot.start).toISOString(), ...(reason ? { reschedulingReason: reason } : {}) },
      });
      return meetingOf(data, slot);
    },
    async cancel(externalId, reason) {
      await call<BookingData>(`/bookings/${encodeURIComponent(externalId)}/cancel`, BOOKINGS_VERSION, {
        method: 'POST',
        body: reason ? { cancellationReason: reason } : {},
      });
    },
  };
}
