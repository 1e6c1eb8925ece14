import { useEffect, useState } from 'react';

/*
 * Work that is not part of the first screen (the live stream, the global message, the toast and modal code, the
 * next pane's code) starts after the browser has painted that screen, not in the effects of the commit that
 * draws it: on a slow link a request started before the paint delays it, and Lighthouse counts every request
 * started before the largest contentful paint in it (docs/performance.md, "Lighthouse").
 */

let firstScreen: Promise<void> | undefined;

/**
 * Resolves once the app's first screen has been painted: when the browser reports a largest contentful paint
 * after the first call (made from the effects of the app's first commit), at the first key or pointer press, or
 * after FIRST_SCREEN_WAIT_MS when the commit drew nothing larger than the static shell did. Animation frames
 * alone do not say it: Chromium can run two frames' callbacks before the paint is presented.
 */
function firstScreenPainted(): Promise<void> {
  firstScreen ??= new Promise<void>((resolve) => {
    const since = performance.now();
    let observer: PerformanceObserver | undefined;
    const done = () => {
      observer?.disconnect();
      clearTimeout(timer);
      window.removeEventListener('pointerdown', done, true);
      window.removeEventListener('keydown', done, true);
      resolve();
    };
    const timer = setTimeout(done, FIRST_SCREEN_WAIT_MS);
    window.addEventListener('pointerdown', done, true);
    window.addEventListener('keydown', done, true);
    if (typeof PerformanceObserver !== 'undefined' && PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint')) {
      observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((entry) => entry.startTime >= since)) done();
      });
      observer.observe({ type: 'largest-contentful-paint', buffered: true });
    }
  });
  return firstScreen;
}

/** How long the first screen's paint is waited for at most. */
export const FIRST_SCREEN_WAIT_MS = 1_000;

/**
 * Runs `run` in a task after the first screen has been painted and, for work started later, after the next
 * frame; with `idle`, when the browser is next idle after that (bounded by 2 s). Returns a cancel function.
 */
export function afterPaint(run: () => void, options: { idle?: boolean } = {}): () => void {
  let cancelled = false;
  let cancel = () => {};
  void firstScreenPainted().then(() => {
    if (cancelled) return;
    const frame = requestAnimationFrame(() => {
      const timer = setTimeout(() => {
        if (options.idle && typeof window.requestIdleCallback === 'function') {
          const handle = window.requestIdleCallback(run, { timeout: 2_000 });
          cancel = () => window.cancelIdleCallback(handle);
        } else {
          run();
        }
      }, 0);
      cancel = () => clearTimeout(timer);
    });
    cancel = () => cancelAnimationFrame(frame);
  });
  return () => {
    cancelled = true;
    cancel();
  };
}

/** False until the first screen has been painted (afterPaint). */
export function useAfterPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => afterPaint(() => setPainted(true)), []);
  return painted;
}
