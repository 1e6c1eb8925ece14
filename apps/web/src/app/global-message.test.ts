import { describe, expect, it } from 'vitest';
import { isGlobalMessageDue } from './global-message.tsx';

const storage = (value: string | null) => ({ getItem: () => value });

describe('isGlobalMessageDue (once per 3 hours per device)', () => {
  const now = 1_800_000_000_000;
  it('is due when never shown', () => expect(isGlobalMessageDue(now, storage(null))).toBe(true));
  it('is not due within 3 hours', () => expect(isGlobalMessageDue(now, storage(String(now - 10_799_999)))).toBe(false));
  it('is due again after 3 hours', () => expect(isGlobalMessageDue(now, storage(String(now - 10_800_000)))).toBe(true));
  it('treats garbage as never shown', () => expect(isGlobalMessageDue(now, storage('nonsense'))).toBe(true));
});
