/** An ISO time `offset` days from today at `hour`:00 UTC: slots inside check_availability's two-week window. */
export function utcSlot(offset: number, hour: number): string {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offset, hour)).toISOString();
}
