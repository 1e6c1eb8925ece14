import { describe, expect, it } from 'vitest';
import { expiryState } from './expiration.tsx';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const inDays = (days: number) => new Date(NOW + days * 86_400_000).toISOString();

describe('expiryState', () => {
  it('says reconnect when Meta rejected the token, whatever the date', () => {
    expect(expiryState(inDays(40), true, NOW)).toBe('reconnect');
    expect(expiryState(null, true, NOW)).toBe('reconnect');
  });

  it('says reconnect once the date has passed, soon within 7 days, ok later, none without a date', () => {
    expect(expiryState(inDays(-1), false, NOW)).toBe('reconnect');
    expect(expiryState(inDays(0), false, NOW)).toBe('reconnect');
    expect(expiryState(inDays(0.5), false, NOW)).toBe('soon');
    expect(expiryState(inDays(7), false, NOW)).toBe('soon');
    expect(expiryState(inDays(7.01), false, NOW)).toBe('ok');
    expect(expiryState(null, false, NOW)).toBe('none');
  });
});
