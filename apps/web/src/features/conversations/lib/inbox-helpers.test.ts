import { describe, expect, it } from 'vitest';
import { aiState, phaseWords } from './phase-words.ts';
import { isUnread } from './read-state.ts';
import { relativeTime } from './relative-time.ts';

describe('phaseWords', () => {
  it('names every phase code in words', () => {
    expect([-3, -2, -1, 0, 2, 3, 9999].map((p) => phaseWords(p, 3))).toEqual([
      'Reading new messages',
      'Needs a person',
      'Error: needs a person',
      'Step 1 of 3',
      'Step 3 of 3',
      'Ended',
      'Ignored',
    ]);
  });
});

describe('aiState', () => {
  it('puts needing a person first, then paused, then ended', () => {
    expect(aiState({ phase: -2, phaseCount: 3, aiPaused: true })).toBe('needs-human');
    expect(aiState({ phase: 1, phaseCount: 3, aiPaused: false, needsHuman: true })).toBe('needs-human');
    expect(aiState({ phase: 1, phaseCount: 3, aiPaused: true })).toBe('paused');
    expect(aiState({ phase: 3, phaseCount: 3, aiPaused: false })).toBe('ended');
    expect(aiState({ phase: -3, phaseCount: 3, aiPaused: false })).toBe('working');
  });
});

describe('isUnread', () => {
  const c = (role: string, dateSent: string) => ({ uuid: 'u1', lastMessage: { role, dateSent } });
  it('is unread when the prospect wrote after what this device has seen', () => {
    expect(isUnread({}, c('PROSPECT', '2026-01-01T10:00:00.000Z'))).toBe(true);
    expect(isUnread({ u1: '2026-01-01T10:00:00.000Z' }, c('PROSPECT', '2026-01-01T10:00:00.000Z'))).toBe(false);
    expect(isUnread({ u1: '2026-01-01T09:00:00.000Z' }, c('PROSPECT', '2026-01-01T10:00:00.000Z'))).toBe(true);
    expect(isUnread({}, c('AGENT', '2026-01-01T10:00:00.000Z'))).toBe(false);
    expect(isUnread({}, { uuid: 'u2', lastMessage: null })).toBe(false);
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  it('says how long ago, then a short date', () => {
    expect(relativeTime('2026-06-15T11:59:40Z', now)).toBe('just now');
    expect(relativeTime('2026-06-15T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-06-15T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-06-14T11:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-06-11T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime('2026-05-01T12:00:00Z', now)).not.toMatch(/ago/);
  });
});
