import { Alert, Group, Loader, Stack, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';

/**
 * A figure's query states inside a card: a small loader while pending, the error as a red alert, otherwise
 * `children(data)`. Smaller than the page-level QueryState, since a card's neighbours stay on screen.
 */
export function FigureState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loader size="sm" />;
  if (query.isError) return <Alert color="red" role="alert">{errorMessage(query.error)}</Alert>;
  return <>{children(query.data)}</>;
}

/**
 * One section of the analytics screen: its heading with `toolbar(data)` beside it once the data is there,
 * optional `controls` under the heading, then the figure (through FigureState).
 */
export function FigureSection<T>({
  title,
  query,
  toolbar,
  controls,
  children,
}: {
  title: string;
  query: UseQueryResult<T>;
  toolbar?: (data: T) => ReactNode;
  controls?: ReactNode;
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
      {controls}
      <FigureState query={query}>{children}</FigureState>
    </Stack>
  );
}
