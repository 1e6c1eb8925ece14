import { Alert, Group, Loader, Stack, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';

/**
 * The frame every analytics figure shares: its title with the toolbar (chart/table switch, CSV export) once the
 * data is there, then a loader, the error as an alert, or the figure itself.
 */
export function FigureSection<T>({
  title,
  query,
  toolbar,
  children,
}: {
  title: string;
  query: UseQueryResult<T>;
  toolbar?: (data: T) => ReactNode;
  children: (data: T) => ReactNode;
}) {
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          {title}
        </Title>
        {query.data !== undefined && toolbar?.(query.data)}
      </Group>
      {query.isPending ? (
        <Loader size="sm" />
      ) : query.isError ? (
        <Alert color="red" role="alert">
          {errorMessage(query.error)}
        </Alert>
      ) : (
        children(query.data)
      )}
    </Stack>
  );
}
