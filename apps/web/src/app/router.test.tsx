import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RouteErrorBoundary } from './router.tsx';

beforeAll(() => {
  // Mantine reads matchMedia, which jsdom lacks.
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
});
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
