import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { queryClient } from '../lib/query-client.ts';
import { colorSchemeManager, cssVariablesResolver, theme } from '../lib/theme.ts';
import { router } from './router.tsx';

export function AppProviders() {
  return (
    // 'auto' follows the system until the header toggle stores a choice.
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          {/* The toast area (spec §2.1) sits at the top of the layout. */}
          <Notifications position="top-center" limit={5} zIndex={1000} />
          <RouterProvider router={router} />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
