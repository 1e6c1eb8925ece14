import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttleTrailing } from './throttle.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('throttleTrailing', () => {
  it('runs the first call at once, gathers a burst into one trailing run, and runs at most once per interval', () => {
    const run = vi.fn();
    const t = throttleTrailing(run, 1000);
    t.call();
    expect(run).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(10);
      t.call();
    }
    // 500 ms in: the burst waits for the trailing run.
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(499);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
    // Nothing more was asked: no further run.
    vi.advanceTimersByTime(5000);
    expect(run).toHaveBeenCalledTimes(2);
    // After a quiet spell a call runs at once again.
    t.call();
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('never loses the last call of a burst, and cancel drops the waiting run', () => {
    const run = vi.fn();
    const t = throttleTrailing(run, 1000);
    t.call();
    vi.advanceTimersByTime(999);
    t.call();
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
    t.call();
    t.cancel();
    vi.advanceTimersByTime(2000);
    expect(run).toHaveBeenCalledTimes(2);
  });
});
