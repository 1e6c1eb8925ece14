import { MantineProvider } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import Overlays from '../app/overlays.tsx';
import { cssVariablesResolver, theme } from '../lib/theme.ts';
import { stubMissingBrowserApis } from './browser-stubs.ts';

/**
 * A query client as the app's, except that a failure is final (the app retries a network failure; a test
 * makes one failure the whole request) and nothing refetches on focus.
 */
export const testQueryClient = () =>
  new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } } });

export interface RenderAppOptions {
  /** The address the router starts at. */
  route?: string;
  /** Pass one to read or drive the cache from the test; a fresh one otherwise. */
  client?: QueryClient;
}

/**
 * Renders a component inside the app's providers (providers.tsx): the theme, the query client, a router and
 * the overlays (the toast area and the confirmation modals' host, mounted at once rather than after the first
 * screen). `rerender` keeps them. Toasts of an earlier test are cleared.
 */
export function renderApp(ui: ReactElement, options: RenderAppOptions = {}) {
  stubMissingBrowserApis();
  notifications.clean();
  const client = options.client ?? testQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <QueryClientProvider client={client}>
        <Overlays />
        <MemoryRouter initialEntries={[options.route ?? '/']}>{children}</MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>
  );
  return { ...render(ui, { wrapper }), client };
}

/** A toast of the given type (lib/toast.ts) showing `text`, once it is on screen. */
export async function findToast(text: string | RegExp, type: 'success' | 'error' | 'info' = 'success') {
  const found = await screen.findByText(text);
  const toast = found.closest('[data-toast-type]');
  if (toast?.getAttribute('data-toast-type') !== type) throw new Error(`"${found.textContent}" is not a ${type} toast`);
  return found;
}
