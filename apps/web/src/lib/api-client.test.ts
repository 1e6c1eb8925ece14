import { describe, expect, it } from 'vitest';
import { errorTextFrom, UNEXPECTED_ERROR, withQuery } from './api-client.ts';

describe('errorTextFrom (spec §8.1 order)', () => {
  it('prefers error, then message, then the first value', () => {
    expect(errorTextFrom({ message: 'm', error: 'e' })).toBe('e');
    expect(errorTextFrom({ message: 'm' })).toBe('m');
    expect(errorTextFrom({ detail: 'first', other: 'x' })).toBe('first');
  });
  it('uses a plain-text body but never an HTML page', () => {
    expect(errorTextFrom('Bad gateway')).toBe('Bad gateway');
    expect(errorTextFrom('<!DOCTYPE html><html>…')).toBe(UNEXPECTED_ERROR);
    expect(errorTextFrom('<html><body>x</body></html>')).toBe(UNEXPECTED_ERROR);
  });
  it('falls back to the generic text', () => {
    expect(errorTextFrom(null)).toBe(UNEXPECTED_ERROR);
    expect(errorTextFrom('')).toBe(UNEXPECTED_ERROR);
    expect(errorTextFrom({})).toBe(UNEXPECTED_ERROR);
  });
});

describe('withQuery', () => {
  it('drops empty values', () => {
    expect(withQuery('/x', { a: 1, b: '', c: undefined, d: false })).toBe('/x?a=1&d=false');
  });
});
