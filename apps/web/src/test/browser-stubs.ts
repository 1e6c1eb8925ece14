/**
 * Browser APIs Mantine reads that jsdom lacks (matchMedia, ResizeObserver, document.fonts for the autosizing
 * Textarea), stubbed where missing for component tests: no query matches, nothing is observed, no font loads.
 */
export function stubMissingBrowserApis(): void {
  window.matchMedia ??= matchMediaAnswering(false);
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  if (!('fonts' in document)) {
    Object.defineProperty(document, 'fonts', { configurable: true, value: new EventTarget() });
  }
}

/** A matchMedia whose every query matches, or none does: `true` is a wide screen for useMediaQuery('(min-width…)'). */
export function matchMediaAnswering(matches: boolean): typeof window.matchMedia {
  return ((query: string) => ({
    matches,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
}
