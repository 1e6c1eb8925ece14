import type { CalendarProvider, Slot } from './calendar.ts';

/**
 * The offline demo calendar (no booking provider configured and no LLM key): 30-minute slots at 10:00 and
 * 14:00 UTC on the next weekdays, so the whole booking flow is tryable out of the box. Bookings get a local id.
 */
export function createDemoCalendar(): CalendarProvider {
  return {
    kind: 'demo',
    async freeSlots(from, to) {
      // The same slots whatever range is asked (from tomorrow on), so a booking re-checks the slot it was offered.
      const now = new Date();
      const slots: Slot[] = [];
      const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
      for (let days = 0; days < 14; days += 1, day.setUTCDate(day.getUTCDate() + 1)) {
        const weekday = day.getUTCDay();
        if (weekday === 0 || weekday === 6) continue;
        for (const hour of [10, 14]) {
          const start = new Date(day.getTime() + hour * 3_600_000);
          if (start >= from && start < to) slots.push({ start: start.toISOString(), end: new Date(start.getTime() + 30 * 60_000).toISOString() });
        }
      }
      return slots.slice(0, 8);
    },
    async book(slot) {
      return { ...slot, externalId: `demo-${Date.parse(slot.start)}` };
    },
    async reschedule(_externalId, slot) {
      return { ...slot, externalId: `demo-${Date.parse(slot.start)}` };
    },
    async cancel() {},
  };
}
