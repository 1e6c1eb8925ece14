import { describe, expect, it } from 'vitest';
import { splitMessage } from './split.ts';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('splitMessage', () => {
  it('keeps a text that fits as one part (trimmed)', () => {
    expect(splitMessage('  Hello there.  ', { unit: 'chars', max: 2000 })).toEqual(['Hello there.']);
    expect(splitMessage('x'.repeat(2000), { unit: 'chars', max: 2000 })).toHaveLength(1);
  });

  it('cuts at the last sentence boundary within the limit, keeping every sentence whole and in order', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something useful!`);
    const text = sentences.join(' ');
    const parts = splitMessage(text, { unit: 'chars', max: 200 });
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(part).toMatch(/^Sentence number \d+ .*useful!$/);
    }
    expect(parts.join(' ')).toBe(text);
  });

  it('treats ?, …, closing quotes and line breaks as sentence ends', () => {
    const text = `Is it? "Yes." Maybe…\nA new line ${'word '.repeat(5)}`;
    const parts = splitMessage(text, { unit: 'chars', max: 20 });
    expect(parts[0]).toBe('Is it? "Yes."');
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(20);
  });

  it('falls back to word boundaries for a sentence longer than the limit', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda';
    const parts = splitMessage(text, { unit: 'chars', max: 16 });
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(16);
      expect(part).not.toMatch(/^\s|\s$/);
    }
    expect(parts.join(' ')).toBe(text);
  });

  it('hard-cuts a single word longer than the limit', () => {
    const url = `https://example.com/${'a'.repeat(45)}`;
    const parts = splitMessage(url, { unit: 'chars', max: 20 });
    expect(parts.map((p) => p.length)).toEqual([20, 20, 20, 5]);
    expect(parts.join('')).toBe(url);
  });

  it('counts UTF-8 bytes for Instagram: 1,000 bytes, multi-byte characters counted in full', () => {
    const text = 'Olá, façam já o pedido! '.repeat(100); // accented letters take 2 bytes
    const parts = splitMessage(text, { unit: 'bytes', max: 1000 });
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect(bytes(part)).toBeLessThanOrEqual(1000);
    expect(parts.join(' ')).toBe(text.trim());
  });

  it('never breaks a surrogate pair (emoji) when cutting by bytes or by characters', () => {
    const emojis = '😀'.repeat(600); // each 2 UTF-16 units, 4 bytes, no boundary anywhere
    for (const limit of [
      { unit: 'bytes' as const, max: 1000 },
      { unit: 'bytes' as const, max: 999 },
      { unit: 'chars' as const, max: 2000 },
      { unit: 'chars' as const, max: 7 },
    ]) {
      const parts = splitMessage(emojis, limit);
      expect(parts.join('')).toBe(emojis);
      for (const part of parts) {
        expect(part).not.toMatch(LONE_SURROGATE);
        expect(limit.unit === 'bytes' ? bytes(part) : part.length).toBeLessThanOrEqual(limit.max);
      }
    }
  });

  it('uses each channel limit: Messenger 2,000, WhatsApp 4,096, SMS 1,600 characters', () => {
    const text = 'This is a sentence of moderate length. '.repeat(300).trim();
    for (const max of [2000, 4096, 1600]) {
      const parts = splitMessage(text, { unit: 'chars', max });
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(max);
      expect(parts.join(' ')).toBe(text);
      expect(parts.every((p) => p.endsWith('.'))).toBe(true);
    }
  });
});
