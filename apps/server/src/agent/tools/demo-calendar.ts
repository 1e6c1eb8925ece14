import type { CalendarProvider, Slot } from './calendar.ts';

/**
 * The offline demo calendar (no booking provider configured and no LLM key): 30-minute slots at 10:00 and
 * 14:00 UTC on the next weekdays, so the whole booking flow is tryable out of the box. Bookings get a local id.
 */
export function createDemoCalendar(): CalendarProvider {
  return {
    kind: 'demo',
    async freeSlots(from, to) {
      const slots: Slot[] = [];
      const day = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + 1));
      while (day < to && slots.length < 6) {
        const weekday = day.getUTCDay();
        if (weekday !== 0 && weekday !== 6) {
          for (const hour of [10, 14]) {
            const start = new Date(day.getTime() + hour * 3_600_000);
            slots.push({ start: start.toISOString(), end: new Date(start.getTime() + 30 * 60_000).toISOString() });
          }
        }
        day.setUTCDate(day.getUTCDate() + 1);
      }
      return slots;
    },
    async book(slot) {
      return { ...slot, externalId: `demo-${Date.parse(slot.start)}` };
    },
  };
}
