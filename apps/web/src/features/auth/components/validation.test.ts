import { describe, expect, it } from 'vitest';
import { validateEmail, validateNewPassword } from './validation.ts';

describe('auth form validation', () => {
  it('requires an email', () => {
    expect(validateEmail('  ')).toBe('Email is required');
    expect(validateEmail('a@b.co')).toBeNull();
  });
  it('requires 8 characters and a matching confirmation', () => {
    expect(validateNewPassword('short', 'short')).toEqual({ password: 'Password must be at least 8 characters long' });
    expect(validateNewPassword('longenough', 'different')).toEqual({ confirmation: 'Passwords do not match' });
    expect(validateNewPassword('longenough', 'longenough')).toEqual({});
  });
});
