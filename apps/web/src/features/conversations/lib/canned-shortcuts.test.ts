import { describe, expect, it } from 'vitest';
import { matchShortcuts } from './canned-shortcuts.ts';

const replies = [
  { shortcut: 'demo-link', text: 'Book a demo here.' },
  { shortcut: 'pricing', text: 'Prices start at $49; a demo is free.' },
];

describe('matchShortcuts', () => {
  it('lists every reply for a lone "/", and shortcuts starting with the word before those containing it', () => {
    expect(matchShortcuts('/', replies)).toEqual(replies);
    expect(matchShortcuts('/pri', replies)?.map((r) => r.shortcut)).toEqual(['pricing']);
    expect(matchShortcuts('/DEMO', replies)?.map((r) => r.shortcut)).toEqual(['demo-link', 'pricing']);
    expect(matchShortcuts('/nothing', replies)).toEqual([]);
  });

  it('offers no menu once the text is more than a shortcut', () => {
    expect(matchShortcuts('', replies)).toBeNull();
    expect(matchShortcuts('hello /pricing', replies)).toBeNull();
    expect(matchShortcuts('/pricing now', replies)).toBeNull();
  });
});
