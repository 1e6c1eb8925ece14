import { reportBooked } from '../../conversations/conversation-outcome.ts';
import type { BookingConfig } from '@sales-agent/shared/schemas/booking-config';
import { recordConversationEvent } from '../../lib/webhook-outbox.ts';
import type { ConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/executor.ts';
import { bookings } from '../../db/schema/index.ts';
import { openSealedValue } from '../../lib/sealed-value.ts';
import { createCalcomCalendar } from './calcom-calendar.ts';
import { type BookedMeeting, CalendarError, type CalendarProvider, type Slot } from './calendar.ts';
import { createDemoCalendar } from './demo-calendar.ts';
import { createGhlCalendar } from './ghl-calendar.ts';
import { toolDefinition, type ToolDefinition } from './tool-types.ts';

/** How far ahead check_availability looks. */
const LOOKAHEAD_DAYS = 14;
/** Slots offered to the model at most (enough to choose from, small enough to keep the prompt short). */
const MAX_SLOTS = 8;

/** A string argument of a tool, with what the model should put in it. */
const stringArg = (description: string) => ({ type: 'string', description });

export const BOOKING_TOOLS: ToolDefinition[] = [
  toolDefinition(
    'check_availability',
    'Lists free meeting slots in the next two weeks. Call it before offering times to the prospect.',
    { timeZone: stringArg("The prospect's IANA time zone, e.g. Europe/Berlin; UTC when unknown.") },
  ),
  toolDefinition(
    'book_meeting',
    'Books one of the slots check_availability returned, once the prospect has chosen it.',
    {
      start: stringArg('The chosen slot start exactly as check_availability returned it.'),
      timeZone: stringArg("The prospect's IANA time zone."),
      name: stringArg("The prospect's name."),
      email: stringArg("The prospect's email address, when known."),
    },
    ['start'],
  ),
  toolDefinition(
    'reschedule_meeting',
    "Moves the prospect's booked meeting to another slot check_availability returned, once the prospect has chosen it.",
    {
      start: stringArg('The new slot start exactly as check_availability returned it.'),
      timeZone: stringArg("The prospect's IANA time zone."),
      reason: stringArg('Why the prospect wants to move it, in their words.'),
    },
    ['start'],
  ),
  toolDefinition(
    'cancel_meeting',
    "Cancels the prospect's booked meeting, only when the prospect asked to cancel it.",
    { reason: stringArg('Why the prospect cancels, in their words.') },
  ),
];

/** The calendar of a type's `booking` config; the offline demo calendar when the demo agent runs without one. */
export function calendarOf(ctx: AppContext, config: ConversationTypeConfig, demoAgent: boolean, crmContactId: string | null): CalendarProvider | null {
  const booking = config.booking;
  if (!booking) return demoAgent ? createDemoCalendar() : null;
  if (booking.provider === 'calcom') {
    const apiKey = openSealedValue(ctx.secrets, booking.apiKey);
    if (apiKey === null) return unavailableCalendar('calcom', 'The stored Cal.com apiKey can no longer be read; enter it again in the config.');
    return createCalcomCalendar(String(ctx.config.CALCOM_API_URL), apiKey, booking.eventTypeId, booking.lengthMinutes);
  }
  // GoHighLevel: the type's own CRM credentials (sealed apiKey, locationId), else the server's GHL_* settings.
  const apiKey = config.apiKey ? openSealedValue(ctx.secrets, config.apiKey) : (ctx.config.GHL_API_KEY ?? null);
  const locationId = config.locationId ?? ctx.config.GHL_LOCATION_ID;
  if (!apiKey || !locationId) return unavailableCalendar('ghl', 'GoHighLevel booking needs the type\'s CRM apiKey and locationId (or GHL_API_KEY and GHL_LOCATION_ID).');
  const lengthMinutes = (booking as { lengthMinutes?: unknown }).lengthMinutes;
  return createGhlCalendar({
    baseUrl: String(ctx.config.GHL_API_URL),
    apiKey,
    locationId,
    calendarId: booking.calendarId,
    contactId: crmContactId,
    lengthMinutes: typeof lengthMinutes === 'number' ? lengthMinutes : undefined,
  });
}

/** A calendar that cannot be used: every tool call fails with `reason`, so the agent says so to the prospect. */
function unavailableCalendar(kind: CalendarProvider['kind'], reason: string): CalendarProvider {
  const fail = () => Promise.reject(new CalendarError(reason));
  return { kind, freeSlots: fail, book: fail, reschedule: fail, cancel: fail };
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

/** The free slot starting at `args.start`: only a slot the calendar still offers is booked (the model cannot invent a time). */
async function offeredSlot(tc: BookingToolContext, args: Record<string, unknown>, timeZone: string): Promise<Slot> {
  const start = typeof args.start === 'string' ? new Date(args.start) : null;
  if (!start || Number.isNaN(start.getTime())) throw new CalendarError('start must be a slot start from check_availability (ISO 8601).');
  const free = await tc.calendar.freeSlots(new Date(start.getTime() - 60_000), new Date(start.getTime() + 86_400_000), timeZone);
  const slot = free.find((s) => Date.parse(s.start) === start.getTime());
  if (!slot) throw new CalendarError('That slot is no longer free; call check_availability again.');
  return slot;
}

export async function bookMeeting(tc: BookingToolContext, args: Record<string, unknown>) {
  const timeZone = validTimeZone(args.timeZone);
  const slot = await offeredSlot(tc, args, timeZone);
  const name = typeof args.name === 'string' && args.name.trim() ? args.name.trim() : tc.prospectName ?? 'Prospect';
  const email = typeof args.email === 'string' && args.email.includes('@') ? args.email.trim() : null;
  const meeting = await tc.calendar.book(slot, { name, email, timeZone });
  // The booking and its meeting.booked webhook event commit together (lib/webhook-outbox.ts).
  await tc.ctx.db.transaction(async (tx) => {
    const booking = await storeBooking(tx, tc, meeting, timeZone);
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
    await reportBooked(tc.ctx, tc.conversationId, tx);
  });
  return { booked: true, start: meeting.start, end: meeting.end, timeZone, confirmation: describeSlot(meeting.start, timeZone), externalId: meeting.externalId };
}

async function storeBooking(db: Executor, tc: BookingToolContext, meeting: BookedMeeting, timeZone: string) {
  const [booking] = await db
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
  return booking;
}

/** The conversation's current meeting (the latest still booked), in the calendar the type uses now. */
async function currentBooking(tc: BookingToolContext) {
  const [row] = await tc.ctx.db
    .select()
    .from(bookings)
    .where(and(eq(bookings.conversationId, tc.conversationId), eq(bookings.status, 'booked')))
    .orderBy(desc(bookings.start))
    .limit(1);
  if (!row) throw new CalendarError('The prospect has no booked meeting to change; offer to book one.');
  if (row.provider !== tc.calendar.kind) throw new CalendarError('The meeting was booked in another calendar; a colleague has to change it.');
  return row;
}

function reasonOf(args: Record<string, unknown>): string | null {
  return typeof args.reason === 'string' && args.reason.trim() ? args.reason.trim().slice(0, 500) : null;
}

export async function rescheduleMeeting(tc: BookingToolContext, args: Record<string, unknown>) {
  const current = await currentBooking(tc);
  const timeZone = typeof args.timeZone === 'string' ? validTimeZone(args.timeZone) : current.timeZone;
  const slot = await offeredSlot(tc, args, timeZone);
  const meeting = await tc.calendar.reschedule(current.externalId, slot, reasonOf(args));
  await tc.ctx.db.transaction(async (tx) => {
    await tx.update(bookings).set({ status: 'rescheduled' }).where(eq(bookings.id, current.id));
    await storeBooking(tx, tc, meeting, timeZone);
    // Still a booked meeting: the opportunity goes (back) to the 'booked' stage, e.g. after a person moved it meanwhile.
    await reportBooked(tc.ctx, tc.conversationId, tx);
  });
  return { rescheduled: true, from: describeSlot(current.start.toISOString(), timeZone), start: meeting.start, end: meeting.end, timeZone, confirmation: describeSlot(meeting.start, timeZone), externalId: meeting.externalId };
}

export async function cancelMeeting(tc: BookingToolContext, args: Record<string, unknown>) {
  const current = await currentBooking(tc);
  await tc.calendar.cancel(current.externalId, reasonOf(args));
  await tc.ctx.db.update(bookings).set({ status: 'cancelled' }).where(eq(bookings.id, current.id));
  return { cancelled: true, meeting: describeSlot(current.start.toISOString(), current.timeZone) };
}
