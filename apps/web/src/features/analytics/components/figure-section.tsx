import { Alert, Group, Loader, Stack, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';

/** The chart/table switch of a figure with a chart, for its FigureToolbar (`<FigureToolbar {...view} />`). */
export type FigureView = { view: string; onView: (view: string) => void };

/**
 * The frame every analytics figure shares: its title with the toolbar (chart/table switch, CSV export) once the
 * data is there, then a loader, the error as an alert, or the figure itself. A figure with a `chart` shows it
 * above its table while the switch says "Chart" (the frame keeps the switch and hands it to the toolbar).
 */
export function FigureSection<T>({
  title,
  query,
  toolbar,
  chart,
  children,
}: {
  title: string;
  query: UseQueryResult<T>;
  toolbar?: (data: T, view: FigureView | undefined) => ReactNode;
  chart?: (data: T) => ReactNode;
  children: (data: T) => ReactNode;
}) {
  const [view, setView] = useState('chart');
  const switcher = chart ? { view, onView: setView } : undefined;
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          {title}
        </Title>
        {query.data !== undefined && toolbar?.(query.data, switcher)}
      </Group>
      {query.isPending ? (
        <Loader size="sm" />
      ) : query.isError ? (
        <Alert color="red" role="alert">
          {errorMessage(query.error)}
        </Alert>
      ) : (
        <>
          {chart && view === 'chart' && chart(query.data)}
          {children(query.data)}
        </>
      )}
    </Stack>
  );
}
