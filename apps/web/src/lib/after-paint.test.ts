import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterPaint, FIRST_SCREEN_WAIT_MS } from './after-paint.ts';

// The first screen is waited for once per page load (module state): the tests below run in this order.
describe('afterPaint', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('waits for the first screen (here: the first key press), then runs after a frame', async () => {
    const run = vi.fn();
    afterPaint(run);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_WAIT_MS / 2);
    expect(run).not.toHaveBeenCalled();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j' }));
    await vi.advanceTimersByTimeAsync(50);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('once the first screen is painted, later work waits only for the next frame', async () => {
    const run = vi.fn();
    afterPaint(run);
    expect(run).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(50);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('idle work waits for the browser to be idle', async () => {
    const idle: IdleRequestCallback[] = [];
    vi.stubGlobal('requestIdleCallback', (callback: IdleRequestCallback) => idle.push(callback));
    const run = vi.fn();
    afterPaint(run, { idle: true });
    await vi.advanceTimersByTimeAsync(50);
    expect(run).not.toHaveBeenCalled();
    expect(idle).toHaveLength(1);
    idle[0]({ didTimeout: false, timeRemaining: () => 10 });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('a cancelled call never runs', async () => {
    const run = vi.fn();
    const cancel = afterPaint(run);
    cancel();
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_WAIT_MS * 2);
    expect(run).not.toHaveBeenCalled();
  });
});
