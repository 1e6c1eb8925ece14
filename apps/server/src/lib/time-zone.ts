/** Whether the runtime knows this IANA time zone (Intl is the maintained tz database Node ships). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
