import { Alert, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { PageTitle } from '../../../components/page-title.tsx';

/**
 * The page a Meta dialog sends the browser back to (connect, Facebook login): its title, a line with a loader
 * while the code is exchanged (`working`), then the outcome (`children`).
 */
export function ReturnPage({ title, working, children }: { title: string; working: ReactNode; children: ReactNode }) {
  return (
    <Stack maw={560} mx="auto" mt="xl">
      <PageTitle>{title}</PageTitle>
      {working ? (
        <Text>
          <Loader size="xs" mr="xs" />
          {working}
        </Text>
      ) : (
        children
      )}
    </Stack>
  );
}

/** A failed exchange, in the alert the page's outcome test id names. */
export function ReturnError({ testId, text }: { testId: string; text: string }) {
  return (
    <Alert color="red" data-testid={testId}>
      {text}
    </Alert>
  );
}
