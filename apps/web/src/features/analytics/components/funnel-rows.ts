import type { FunnelResult } from '@sales-agent/shared/schemas/analytics';

/** One funnel step as the chart and the table show it. */
export interface FunnelRow {
  /** The step key the click-through sends: `started`, a phase number, `ended` or `booked`. */
  step: string;
  label: string;
  count: number;
  /** Percent of started (one decimal), null when nothing started. */
  percent: number | null;
  /** Conversations lost since the previous step (null for the first and for booked). */
  dropOff: number | null;
}

const pct = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 10);

/** started → each phase → ended, then booked (not a step after ended: a meeting can be booked in any phase). */
export function funnelRows(f: FunnelResult): FunnelRow[] {
  const chain = [
    { step: 'started', label: 'Started', count: f.started },
    ...f.steps.map((s) => ({ step: String(s.phase), label: s.label, count: s.reached })),
    { step: 'ended', label: 'Ended', count: f.ended },
  ];
  const rows: FunnelRow[] = chain.map((r, i) => ({
    ...r,
    percent: pct(r.count, f.started),
    dropOff: i === 0 ? null : chain[i - 1].count - r.count,
  }));
  rows.push({ step: 'booked', label: 'Booked', count: f.booked, percent: pct(f.booked, f.started), dropOff: null });
  return rows;
}

/** CSV text (RFC 4180 quoting) of a table: a header row, then the rows. */
export function toCsv(header: string[], rows: (string | number | null)[][]): string {
  const cell = (v: string | number | null) => {
    const s = v === null ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Saves `text` as a file through a temporary link (the browser's download). */
export function downloadCsv(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}
