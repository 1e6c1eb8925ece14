import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { timezones } from 'libphonenumber-geo-carrier';
import { type BusinessHoursConfig, readConversationTypeConfig, WEEK_DAYS } from '@sales-agent/shared/schemas/conversation-type-config';

/**
 * Quiet hours (issue 23, docs/compliance.md): automated contact that the prospect did not just ask for —
 * follow-ups, calls — happens between 8 AM and 9 PM of the prospect's local time. Replies to a message the
 * prospect just wrote are not delayed. The clock is injectable so tests can move it to 2 AM.
 */
export const QUIET_HOURS = { startHour: 8, endHour: 21 } as const;

/** The clock quiet hours read; tests replace `now`. */
export const quietHoursClock = { now: (): Date => new Date() };

/** Why automated contact must wait, and until when (`timeZone`: the person's zone, or the business hours' own). */
export interface ContactWait {
  until: Date;
  timeZone: string;
  reason: 'quiet-hours' | 'business-hours';
}

/**
 * Whether automated contact (a follow-up, a call, a campaign send) may happen right now: null when it may,
 * else until when it must wait — the first moment that is both outside the person's quiet hours (9 PM–8 AM
 * in their zone) and inside the conversation type's business hours (`config.businessHours`, in its own zone;
 * unset: every day). The person's zone is the phone number's (timeZoneOfPhone), else the business hours'
 * zone, else DEFAULT_TIME_ZONE. QUIET_HOURS_ENFORCED=false turns off the quiet hours (test servers on a real
 * clock); business hours an admin configured always hold.
 */
export async function quietNow(
  config: { DEFAULT_TIME_ZONE: string; QUIET_HOURS_ENFORCED: boolean },
  address: string | null = null,
  typeConfig: string | null = null,
): Promise<ContactWait | null> {
  const now = quietHoursClock.now();
  const business = readConversationTypeConfig(typeConfig).businessHours ?? null;
  const personZone = (await timeZoneOfPhone(address, now)) ?? business?.timeZone ?? config.DEFAULT_TIME_ZONE;
  let at = now;
  let first: ContactWait['reason'] | null = null;
  // Each rule answers its own next opening; alternating them reaches a moment both allow (a week at most).
  for (let step = 0; step < 32; step += 1) {
    const quiet = config.QUIET_HOURS_ENFORCED ? quietUntil(at, personZone) : null;
    if (quiet) {
      at = quiet;
      first ??= 'quiet-hours';
      continue;
    }
    const closed = business ? businessHoursUntil(at, business) : null;
    if (closed) {
      at = closed;
      first ??= 'business-hours';
      continue;
    }
    break;
  }
  if (!first) return null;
  return { until: at, timeZone: first === 'business-hours' ? business!.timeZone : personZone, reason: first };
}

/**
 * Null when `at` is inside the business hours, else the next opening (to the minute, in the hours' zone; a
 * DST change on the way can shift it by its hour).
 */
export function businessHoursUntil(at: Date, hours: BusinessHoursConfig): Date | null {
  const { weekday, minutes } = localClock(at, hours.timeZone);
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  for (let ahead = 0; ahead <= 7; ahead += 1) {
    const day = hours.days[WEEK_DAYS[(weekday + ahead) % 7]];
    if (!day) continue;
    const [open, close] = day.map(toMinutes);
    if (ahead === 0 && minutes >= open && minutes < close) return null;
    if (ahead === 0 && minutes >= open) continue;
    const next = new Date(at.getTime() + (ahead * 24 * 60 + open - minutes) * 60_000);
    next.setUTCSeconds(0, 0);
    return next;
  }
  return null; // unreachable: the schema asks for at least one open day
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
  return localClock(at, timeZone).minutes;
}

const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** The local weekday (0 = Sunday) and minutes since local midnight of `at` in `timeZone`. */
function localClock(at: Date, timeZone: string): { weekday: number; minutes: number } {
  let format = clockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
    clockFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { weekday: SHORT_DAYS.indexOf(get('weekday')), minutes: Number(get('hour')) * 60 + Number(get('minute')) };
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

/** A sentence for an action refused by quietNow, with the local time it may happen. */
export function contactWaitMessage(action: string, wait: ContactWait): string {
  if (wait.reason === 'quiet-hours') return quietHoursMessage(action, wait.until, wait.timeZone);
  const when = new Intl.DateTimeFormat('en-US', { timeZone: wait.timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(wait.until);
  return `${action} is not allowed now: it is outside the business hours of this conversation type (${wait.timeZone}). It may happen from ${when}.`;
}

/** A sentence for a refused action, with the local time it may happen. */
export function quietHoursMessage(action: string, until: Date, timeZone: string): string {
  const when = new Intl.DateTimeFormat('en-US', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(until);
  return `${action} is not allowed now: it is quiet hours (9 PM to 8 AM) for this person (${timeZone}). It may happen from ${when}.`;
}
