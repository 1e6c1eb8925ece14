import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { queryClient } from '../lib/query-client.ts';
import { colorSchemeManager, cssVariablesResolver, theme } from '../lib/theme.ts';
import { AppRouter } from './router.tsx';

/**
 * The toast area loads after the first screen (its component and transitions are not needed to draw it). A toast
 * shown before that waits in @mantine/notifications' store and appears when the area mounts.
 */
const Notifications = lazy(async () => ({ default: (await import('@mantine/notifications')).Notifications }));

export function AppProviders() {
  return (
    // 'auto' follows the system until the header toggle stores a choice.
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          {/* The toast area (spec §2.1) sits at the top of the layout. */}
          <Suspense fallback={null}>
            <Notifications position="top-center" limit={5} zIndex={1000} />
          </Suspense>
          <AppRouter />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
