import { type BookedMeeting, CalendarError, type CalendarProvider, type Slot } from './calendar.ts';

/**
 * GoHighLevel calendars (reference/third-party-facts.md "GoHighLevel API v2"; HighLevel's OpenAPI
 * `AppointmentCreateSchema`): `Authorization: Bearer <token>` and `Version: 2021-04-15` for the calendars family.
 * GET /calendars/{id}/free-slots?startDate=<epoch ms>&endDate=<epoch ms>&timezone=<IANA> answers
 * `{"YYYY-MM-DD": {slots: ["…+offset"]}, traceId?}` (only date keys are read); POST /calendars/events/appointments
 * `{calendarId, locationId, contactId, startTime, endTime, title}` answers `{id, startTime, endTime, …}` unwrapped;
 * PUT /calendars/events/appointments/{id} moves it (`startTime`, `endTime`) or cancels it (`appointmentStatus:
 * "cancelled"`). An appointment is made on a contact: the conversation's CRM contact.
 */
const CALENDARS_VERSION = '2021-04-15';
const TIMEOUT_MS = 10_000;

export interface GhlCalendarSettings {
  baseUrl: string;
  apiKey: string;
  locationId: string;
  calendarId: string;
  contactId: string | null;
  lengthMinutes?: number;
}

export function createGhlCalendar(s: GhlCalendarSettings): CalendarProvider {
  const base = s.baseUrl.replace(/\/$/, '');
  const length = (s.lengthMinutes ?? 30) * 60_000;
  async function call<T>(path: string, method: 'GET' | 'POST' | 'PUT', body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(base + path, {
        method,
        headers: {
          Authorization: `Bearer ${s.apiKey}`,
          Version: CALENDARS_VERSION,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new CalendarError('GoHighLevel could not be reached.');
    }
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new CalendarError(`GoHighLevel answered ${response.status} with something that is not JSON.`);
    }
    if (!response.ok) {
      const message = Array.isArray(json.message) ? json.message.join('; ') : json.message;
      throw new CalendarError(`GoHighLevel answered ${response.status}${message ? `: ${String(message).slice(0, 200)}` : ''}`);
    }
    return json as T;
  }
  const meetingOf = (data: { id?: string; startTime?: string; endTime?: string }, slot: Slot): BookedMeeting => {
    if (!data.id) throw new CalendarError('GoHighLevel confirmed no appointment id.');
    return {
      externalId: data.id,
      start: data.startTime ? new Date(data.startTime).toISOString() : slot.start,
      end: data.endTime ? new Date(data.endTime).toISOString() : slot.end,
    };
  };
  const contact = () => {
    if (!s.contactId) throw new CalendarError('GoHighLevel books on a CRM contact, and this conversation has none; a colleague has to book it.');
    return s.contactId;
  };
  return {
    kind: 'ghl',
    async freeSlots(from, to, timeZone) {
      const query = new URLSearchParams({ startDate: String(from.getTime()), endDate: String(to.getTime()), timezone: timeZone });
      const days = await call<Record<string, unknown>>(`/calendars/${encodeURIComponent(s.calendarId)}/free-slots?${query}`, 'GET');
      const slots: Slot[] = [];
      for (const [key, day] of Object.entries(days)) {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(key)) continue;
        const listed = (day as { slots?: unknown } | null)?.slots;
        for (const start of Array.isArray(listed) ? listed : []) {
          const at = new Date(String(start));
          if (Number.isNaN(at.getTime()) || at < from || at >= to) continue;
          slots.push({ start: at.toISOString(), end: new Date(at.getTime() + length).toISOString() });
        }
      }
      return slots.sort((a, b) => a.start.localeCompare(b.start));
    },
    async book(slot, attendee) {
      const data = await call<{ id?: string; startTime?: string; endTime?: string }>('/calendars/events/appointments', 'POST', {
        calendarId: s.calendarId,
        locationId: s.locationId,
        contactId: contact(),
        startTime: slot.start,
        endTime: slot.end,
        title: `Meeting with ${attendee.name}`,
      });
      return meetingOf(data, slot);
    },
    async reschedule(externalId, slot) {
      const data = await call<{ id?: string; startTime?: string; endTime?: string }>(`/calendars/events/appointments/${encodeURIComponent(externalId)}`, 'PUT', {
        startTime: slot.start,
        endTime: slot.end,
      });
      return meetingOf({ ...data, id: data.id ?? externalId }, slot);
    },
    async cancel(externalId) {
      await call(`/calendars/events/appointments/${encodeURIComponent(externalId)}`, 'PUT', { appointmentStatus: 'cancelled' });
    },
  };
}
