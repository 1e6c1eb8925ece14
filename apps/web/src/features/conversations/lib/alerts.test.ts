import { describe, expect, it } from 'vitest';
import { newlyNeedingPerson, setSoundEnabled, soundEnabled } from './alerts.ts';

describe('alerts', () => {
  it('rings only for conversations that newly need a person, never on the first look', () => {
    const first = newlyNeedingPerson(null, [{ uuid: 'a', needsHuman: true }]);
    expect(first.fresh).toEqual([]);
    const next = newlyNeedingPerson(first.now, [
      { uuid: 'a', needsHuman: true },
      { uuid: 'b', needsHuman: true },
      { uuid: 'c', needsHuman: false },
    ]);
    expect(next.fresh).toEqual(['b']);
    expect(newlyNeedingPerson(next.now, [{ uuid: 'b', needsHuman: true }]).fresh).toEqual([]);
  });

  it('keeps the sound choice in this browser, off by default', () => {
    expect(soundEnabled()).toBe(false);
    setSoundEnabled(true);
    expect(soundEnabled()).toBe(true);
    setSoundEnabled(false);
    expect(soundEnabled()).toBe(false);
  });
});
