import { LIMITS } from '@sales-agent/shared/limits';

/** What the statistics need of a recording (a subset of the API's CallRecording). */
export interface RecordingFacts {
  duration: number;
  createdAt: string;
  user: { email: string };
}

/** Spec §9: durations are shown as hours, minutes and seconds ("1h 2m 3s", "4m 5s", "6s"). */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

/** A player clock: "1:05" or "1:02:03". */
export function formatClock(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(2)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}

export interface TopUser {
  email: string;
  calls: number;
  totalDuration: number;
  averageDuration: number;
}

export interface DayPoint {
  /** Local calendar day, YYYY-MM-DD. */
  day: string;
  calls: number;
  minutes: number;
}

export interface RecordingStatistics {
  totalCalls: number;
  totalDuration: number;
  averageDuration: number;
  callsThisMonth: number;
  topUsers: TopUser[];
  perDay: DayPoint[];
}

/** Local calendar day of an instant, YYYY-MM-DD. */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * The cards, top users and chart of the statistics page (spec §2.12), computed from the recordings in view.
 * "This month" is the calendar month of `now` in the user's time zone.
 */
export function computeStatistics(recordings: RecordingFacts[], now: Date = new Date()): RecordingStatistics {
  const totalCalls = recordings.length;
  const totalDuration = recordings.reduce((sum, r) => sum + r.duration, 0);
  let callsThisMonth = 0;
  const byUser = new Map<string, { calls: number; totalDuration: number }>();
  const byDay = new Map<string, { calls: number; seconds: number }>();
  for (const r of recordings) {
    const created = new Date(r.createdAt);
    if (created.getFullYear() === now.getFullYear() && created.getMonth() === now.getMonth()) callsThisMonth += 1;
    const user = byUser.get(r.user.email) ?? { calls: 0, totalDuration: 0 };
    user.calls += 1;
    user.totalDuration += r.duration;
    byUser.set(r.user.email, user);
    const day = localDay(created);
    const point = byDay.get(day) ?? { calls: 0, seconds: 0 };
    point.calls += 1;
    point.seconds += r.duration;
    byDay.set(day, point);
  }
  const topUsers = [...byUser.entries()]
    .map(([email, u]) => ({ email, calls: u.calls, totalDuration: u.totalDuration, averageDuration: u.totalDuration / u.calls }))
    .sort((a, b) => b.totalDuration - a.totalDuration || b.calls - a.calls || a.email.localeCompare(b.email))
    .slice(0, LIMITS.topUsers);
  const perDay = [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, p]) => ({ day, calls: p.calls, minutes: Math.round((p.seconds / 60) * 100) / 100 }));
  return {
    totalCalls,
    totalDuration,
    averageDuration: totalCalls ? totalDuration / totalCalls : 0,
    callsThisMonth,
    topUsers,
    perDay,
  };
}

/**
 * Spec §5: the start date counts from its 00:00 and the end date to its 23:59:59.999, in the user's time
 * zone. Takes the YYYY-MM-DD values of date inputs; empty means open-ended.
 */
export function dateRangeQuery(start: string, end: string): { start?: string; end?: string } {
  const parse = (value: string, endOfDay: boolean) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
    if (!m) return undefined;
    const date = endOfDay
      ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999)
      : new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 0, 0, 0, 0);
    // new Date rolls 2025-02-31 over into March; such a value is no date at all.
    if (date.getMonth() !== Number(m[2]) - 1 || date.getDate() !== Number(m[3])) return undefined;
    return date.toISOString();
  };
  const query: { start?: string; end?: string } = {};
  const s = parse(start, false);
  const e = parse(end, true);
  if (s) query.start = s;
  if (e) query.end = e;
  return query;
}

export const REJECTED_FILES_MESSAGE = 'Some files were rejected. Only audio and video files are allowed.';

/** Spec §5: only files whose type starts with audio/ or video/ are kept. */
export function partitionMediaFiles<T extends { type: string }>(files: T[]): { kept: T[]; rejected: T[] } {
  const kept: T[] = [];
  const rejected: T[] = [];
  for (const file of files) (file.type.startsWith('audio/') || file.type.startsWith('video/') ? kept : rejected).push(file);
  return { kept, rejected };
}
