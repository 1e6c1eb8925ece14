import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stubMissingBrowserApis } from '../test/browser-stubs.ts';
import { loadRoute, PREFETCH_WAIT_MS, RouteErrorBoundary } from './router.tsx';

// Mantine reads browser APIs that jsdom lacks.
beforeAll(stubMissingBrowserApis);
afterEach(cleanup);

function Broken(): never {
  throw new Error('the page broke');
}

const at = (pathname: string, child: React.ReactNode) => (
  <MantineProvider>
    <RouteErrorBoundary pathname={pathname}>{child}</RouteErrorBoundary>
  </MantineProvider>
);

describe('RouteErrorBoundary', () => {
  it("shows spec §8.3's 'Unexpected Application Error!' with the error, until the location changes", () => {
    // React logs the caught error; keep the test output readable.
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const view = render(at('/admin/hello', <Broken />));
      expect(screen.getByRole('heading', { level: 1, name: 'Unexpected Application Error!' })).toBeTruthy();
      expect(screen.getByText('the page broke')).toBeTruthy();

      // Same location: the error stays even if the page would now render.
      view.rerender(at('/admin/hello', <p>fine</p>));
      expect(screen.queryByText('fine')).toBeNull();

      // Another location renders its page again.
      view.rerender(at('/login', <p>fine</p>));
      expect(screen.getByText('fine')).toBeTruthy();
      expect(screen.queryByText('Unexpected Application Error!')).toBeNull();
    } finally {
      quiet.mockRestore();
    }
  });
});

// The inbox page's module, with a prefetch that never answers (a hung request).
const hungPrefetch = vi.hoisted(() => vi.fn((_search: string) => new Promise<void>(() => {})));
vi.mock('../features/conversations/pages/conversation-list-page.tsx', () => ({ default: () => null, prefetch: hungPrefetch }));
vi.mock('./all-styles.ts', () => ({}));

describe('loadRoute', () => {
  it("waits for the page's prefetch with the query string, but no longer than PREFETCH_WAIT_MS", async () => {
    vi.useFakeTimers();
    try {
      let loaded = false;
      const loading = loadRoute('/conversation/list', '?phase=2').then(() => (loaded = true));
      await vi.waitFor(() => expect(hungPrefetch).toHaveBeenCalledWith('?phase=2'));
      await vi.advanceTimersByTimeAsync(PREFETCH_WAIT_MS - 100);
      expect(loaded).toBe(false);
      await vi.advanceTimersByTimeAsync(200);
      await loading;
      expect(loaded).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
