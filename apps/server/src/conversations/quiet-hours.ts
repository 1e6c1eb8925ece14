/**
 * Quiet hours (issue 23, docs/compliance.md): automated contact that the prospect did not just ask for —
 * follow-ups, calls — happens between 8 AM and 9 PM of the prospect's local time. Replies to a message the
 * prospect just wrote are not delayed. The clock is injectable so tests can move it to 2 AM.
 */
export const QUIET_HOURS = { startHour: 8, endHour: 21 } as const;

/** The clock quiet hours read; tests replace `now`. */
export const quietHoursClock = { now: (): Date => new Date() };

/** The zone and switch quiet hours read from the config (DEFAULT_TIME_ZONE, QUIET_HOURS_ENFORCED). */
export function quietNow(config: { DEFAULT_TIME_ZONE: string; QUIET_HOURS_ENFORCED: boolean }): { until: Date; timeZone: string } | null {
  if (!config.QUIET_HOURS_ENFORCED) return null;
  const until = quietUntil(quietHoursClock.now(), config.DEFAULT_TIME_ZONE);
  return until ? { until, timeZone: config.DEFAULT_TIME_ZONE } : null;
}

/** Minutes since local midnight of `at` in `timeZone`. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

/**
 * Null when `at` is inside the allowed window of `timeZone`; else the next 8:00 local (to the minute; a DST
 * change that night can shift it by its hour, still inside the window's morning).
 */
export function quietUntil(at: Date, timeZone: string): Date | null {
  const minutes = localMinutes(at, timeZone);
  const start = QUIET_HOURS.startHour * 60;
  const end = QUIET_HOURS.endHour * 60;
  if (minutes >= start && minutes < end) return null;
  const wait = (start - minutes + 24 * 60) % (24 * 60);
  const next = new Date(at.getTime() + wait * 60_000);
  next.setUTCSeconds(0, 0);
  return next;
}

/** A sentence for a refused action, with the local time it may happen. */
export function quietHoursMessage(action: string, until: Date, timeZone: string): string {
  const when = new Intl.DateTimeFormat('en-US', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(until);
  return `${action} is not allowed now: it is quiet hours (9 PM to 8 AM) for this person (${timeZone}). It may happen from ${when}.`;
}
