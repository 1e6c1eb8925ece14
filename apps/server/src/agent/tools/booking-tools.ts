import type { BookingConfig } from '@sales-agent/shared/schemas/booking-config';
import { recordConversationEvent } from '../../lib/webhook-outbox.ts';
import type { AppContext } from '../../context.ts';
import { bookings } from '../../db/schema/index.ts';
import { createCalcomCalendar } from './calcom-calendar.ts';
import { CalendarError, type CalendarProvider, type Slot } from './calendar.ts';
import { createDemoCalendar } from './demo-calendar.ts';
import type { ToolDefinition } from './tool-types.ts';

/** How far ahead check_availability looks. */
const LOOKAHEAD_DAYS = 14;
/** Slots offered to the model at most (enough to choose from, small enough to keep the prompt short). */
const MAX_SLOTS = 8;
const SEALED_PREFIX = 'sealed:';

export const BOOKING_TOOLS: ToolDefinition[] = [
  {
    name: 'check_availability',
    description: 'Lists free meeting slots in the next two weeks. Call it before offering times to the prospect.',
    parameters: {
      type: 'object',
      properties: { timeZone: { type: 'string', description: "The prospect's IANA time zone, e.g. Europe/Berlin; UTC when unknown." } },
      required: [],
      additionalProperties: false,
    },
  },
  {
    name: 'book_meeting',
    description: 'Books one of the slots check_availability returned, once the prospect has chosen it.',
    parameters: {
      type: 'object',
      properties: {
        start: { type: 'string', description: 'The chosen slot start exactly as check_availability returned it.' },
        timeZone: { type: 'string', description: "The prospect's IANA time zone." },
        name: { type: 'string', description: "The prospect's name." },
        email: { type: 'string', description: "The prospect's email address, when known." },
      },
      required: ['start'],
      additionalProperties: false,
    },
  },
];

/** The calendar of a type's `booking` config; the offline demo calendar when the demo agent runs without one. */
export function calendarOf(ctx: AppContext, booking: BookingConfig | undefined, demoAgent: boolean): CalendarProvider | null {
  if (!booking) return demoAgent ? createDemoCalendar() : null;
  if (booking.provider === 'calcom') {
    const apiKey = booking.apiKey.startsWith(SEALED_PREFIX) ? openSealed(ctx, booking.apiKey) : booking.apiKey;
    return createCalcomCalendar(String(ctx.config.CALCOM_API_URL), apiKey, booking.eventTypeId, booking.lengthMinutes);
  }
  // GoHighLevel calendars are not wired yet (see the issue 22 report); the tools say so instead of guessing.
  return {
    kind: 'ghl',
    freeSlots: () => Promise.reject(new CalendarError('GoHighLevel calendar booking is not available yet.')),
    book: () => Promise.reject(new CalendarError('GoHighLevel calendar booking is not available yet.')),
  };
}

function openSealed(ctx: AppContext, stored: string): string {
  try {
    return ctx.secrets.open(stored.slice(SEALED_PREFIX.length));
  } catch {
    throw new CalendarError('The stored Cal.com apiKey can no longer be read; enter it again in the config.');
  }
}

/** A time zone the runtime knows, else UTC (a model may write "CET" or nonsense). */
export function validTimeZone(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value.trim() });
    return value.trim();
  } catch {
    return 'UTC';
  }
}

/** "Tuesday, 3 December 2026, 10:00 (Europe/Berlin)": how slots and bookings are put to the prospect. */
export function describeSlot(iso: string, timeZone: string): string {
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
  return `${when} (${timeZone})`;
}

export interface BookingToolContext {
  ctx: AppContext;
  conversationId: number;
  calendar: CalendarProvider;
  prospectName: string | null;
}

export async function checkAvailability(tc: BookingToolContext, args: Record<string, unknown>) {
  const timeZone = validTimeZone(args.timeZone);
  const from = new Date();
  const to = new Date(from.getTime() + LOOKAHEAD_DAYS * 86_400_000);
  const slots = (await tc.calendar.freeSlots(from, to, timeZone)).slice(0, MAX_SLOTS);
  return { timeZone, slots: slots.map((s: Slot) => ({ start: s.start, end: s.end, label: describeSlot(s.start, timeZone) })) };
}

export async function bookMeeting(tc: BookingToolContext, args: Record<string, unknown>) {
  const timeZone = validTimeZone(args.timeZone);
  const start = typeof args.start === 'string' ? new Date(args.start) : null;
  if (!start || Number.isNaN(start.getTime())) throw new CalendarError('start must be a slot start from check_availability (ISO 8601).');
  const to = new Date(start.getTime() + 86_400_000);
  // Only a slot the calendar still offers is booked: the model cannot invent a time.
  const free = await tc.calendar.freeSlots(new Date(start.getTime() - 60_000), to, timeZone);
  const slot = free.find((s) => Date.parse(s.start) === start.getTime());
  if (!slot) throw new CalendarError('That slot is no longer free; call check_availability again.');
  const name = typeof args.name === 'string' && args.name.trim() ? args.name.trim() : tc.prospectName ?? 'Prospect';
  const email = typeof args.email === 'string' && args.email.includes('@') ? args.email.trim() : null;
  const meeting = await tc.calendar.book(slot, { name, email, timeZone });
  // The booking and its meeting.booked webhook event commit together (lib/webhook-outbox.ts).
  await tc.ctx.db.transaction(async (tx) => {
    const [booking] = await tx
      .insert(bookings)
      .values({
        conversationId: tc.conversationId,
        provider: tc.calendar.kind,
        externalId: meeting.externalId,
        start: new Date(meeting.start),
        end: new Date(meeting.end),
        timeZone,
      })
      .returning();
    await recordConversationEvent(tx, 'meeting.booked', tc.conversationId, {
      meeting: {
        id: booking.id,
        provider: booking.provider,
        externalId: booking.externalId,
        start: booking.start.toISOString(),
        end: booking.end.toISOString(),
        timeZone: booking.timeZone,
        name,
        email,
      },
    });
  });
  return { booked: true, start: meeting.start, end: meeting.end, timeZone, confirmation: describeSlot(meeting.start, timeZone), externalId: meeting.externalId };
}
