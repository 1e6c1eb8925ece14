import { describe, expect, it } from 'vitest';
import {
  computeStatistics,
  dateRangeQuery,
  formatBytes,
  formatClock,
  formatDuration,
  localDay,
  partitionMediaFiles,
  type RecordingFacts,
} from './statistics.ts';

const rec = (email: string, duration: number, createdAt: Date): RecordingFacts => ({
  user: { email },
  duration,
  createdAt: createdAt.toISOString(),
});

describe('formatDuration', () => {
  it('shows hours, minutes and seconds, leaving out empty leading units', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(2.4)).toBe('2s');
    expect(formatDuration(59.6)).toBe('1m 0s');
    expect(formatDuration(125)).toBe('2m 5s');
    expect(formatDuration(3600)).toBe('1h 0m 0s');
    expect(formatDuration(3723)).toBe('1h 2m 3s');
    expect(formatDuration(90061)).toBe('25h 1m 1s');
    expect(formatDuration(Number.NaN)).toBe('0s');
    expect(formatDuration(-5)).toBe('0s');
  });

  it('formats a player clock and byte sizes', () => {
    expect(formatClock(0)).toBe('0:00');
    expect(formatClock(65.9)).toBe('1:05');
    expect(formatClock(3723)).toBe('1:02:03');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(6417)).toBe('6.3 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.00 MB');
  });
});

describe('computeStatistics', () => {
  const now = new Date(2025, 4, 20, 12); // 20 May 2025, local time

  it('counts calls, total, average and this month’s calls', () => {
    const stats = computeStatistics(
      [
        rec('a@x.io', 60, new Date(2025, 4, 1, 0, 0, 0)),
        rec('a@x.io', 120, new Date(2025, 4, 19, 23, 59)),
        rec('b@x.io', 30, new Date(2025, 3, 30, 23, 59, 59)),
      ],
      now,
    );
    expect(stats).toMatchObject({ totalCalls: 3, totalDuration: 210, averageDuration: 70, callsThisMonth: 2 });
  });

  it('is all zeros for no recordings', () => {
    expect(computeStatistics([], now)).toEqual({
      totalCalls: 0,
      totalDuration: 0,
      averageDuration: 0,
      callsThisMonth: 0,
      topUsers: [],
      perDay: [],
    });
  });

  it('ranks the top 5 users by total recording time with calls and average per call', () => {
    const list = [
      rec('one@x.io', 10, now),
      rec('two@x.io', 100, now),
      rec('two@x.io', 50, now),
      rec('three@x.io', 40, now),
      rec('four@x.io', 30, now),
      rec('five@x.io', 20, now),
      rec('six@x.io', 5, now),
      rec('seven@x.io', 1, now),
    ];
    const { topUsers } = computeStatistics(list, now);
    expect(topUsers.map((u) => u.email)).toEqual(['two@x.io', 'three@x.io', 'four@x.io', 'five@x.io', 'one@x.io']);
    expect(topUsers[0]).toEqual({ email: 'two@x.io', calls: 2, totalDuration: 150, averageDuration: 75 });
  });

  it('groups calls and minutes per local day in date order', () => {
    const { perDay } = computeStatistics(
      [rec('a@x.io', 90, new Date(2025, 4, 3, 23, 30)), rec('a@x.io', 30, new Date(2025, 4, 3, 0, 10)), rec('a@x.io', 20, new Date(2025, 4, 1, 8))],
      now,
    );
    expect(perDay).toEqual([
      { day: '2025-05-01', calls: 1, minutes: 0.33 },
      { day: '2025-05-03', calls: 2, minutes: 2 },
    ]);
    expect(localDay(new Date(2025, 0, 9))).toBe('2025-01-09');
  });
});

describe('dateRangeQuery', () => {
  it('starts the first day at 00:00 and ends the last at 23:59:59.999 local time', () => {
    const q = dateRangeQuery('2025-03-01', '2025-03-31');
    expect(new Date(q.start!).getTime()).toBe(new Date(2025, 2, 1, 0, 0, 0, 0).getTime());
    expect(new Date(q.end!).getTime()).toBe(new Date(2025, 2, 31, 23, 59, 59, 999).getTime());
  });

  it('leaves out empty or invalid bounds', () => {
    expect(dateRangeQuery('', '')).toEqual({});
    expect(dateRangeQuery('2025-03-01', '')).toEqual({ start: new Date(2025, 2, 1).toISOString() });
    expect(dateRangeQuery('nope', '2025-13-45')).toEqual({});
    expect(dateRangeQuery('2025-02-31', '')).toEqual({});
  });
});

describe('partitionMediaFiles', () => {
  it('keeps only audio/* and video/* files', () => {
    const files = [{ type: 'audio/mpeg' }, { type: 'video/mp4' }, { type: 'text/plain' }, { type: '' }, { type: 'audio/wav' }];
    const { kept, rejected } = partitionMediaFiles(files);
    expect(kept.map((f) => f.type)).toEqual(['audio/mpeg', 'video/mp4', 'audio/wav']);
    expect(rejected.map((f) => f.type)).toEqual(['text/plain', '']);
  });
});
