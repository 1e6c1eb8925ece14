import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { afterPaint } from '../lib/after-paint.ts';
import { mountOverlays, onOverlaysWanted, overlaysWanted } from '../lib/deferred-overlays.ts';
import { queryClient } from '../lib/query-client.ts';
import { colorSchemeManager, cssVariablesResolver, theme } from '../lib/theme.ts';
import { AppRouter } from './router.tsx';

/** The toast area and the modals' host, after the first screen (lib/deferred-overlays.ts). */
const Overlays = lazy(() => import('./overlays.tsx'));

function DeferredOverlays() {
  const wanted = useSyncExternalStore(onOverlaysWanted, overlaysWanted);
  useEffect(() => afterPaint(() => void mountOverlays(), { idle: true }), []);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <Overlays />
    </Suspense>
  );
}

export function AppProviders() {
  return (
    // 'auto' follows the system until the header toggle stores a choice.
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <DeferredOverlays />
        <AppRouter />
      </QueryClientProvider>
    </MantineProvider>
  );
}
