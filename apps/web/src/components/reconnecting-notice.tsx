import { Group, Loader, Text } from '@mantine/core';
import { errorMessage } from '../lib/api-client.ts';

/**
 * True when a query that has data failed to refresh it (a deploy, a Wi-Fi blip), or is retrying after a failure:
 * the screen keeps showing the data with ReconnectingNotice instead of replacing it with an error (issue 18).
 * It turns false once a refetch succeeds.
 */
export function isRefreshFailing(query: { data?: unknown; isError: boolean; failureCount: number }): boolean {
  return query.data !== undefined && (query.isError || query.failureCount > 0);
}

/**
 * A small notice above data that could not be refreshed: "Reconnecting…" while the app keeps asking (polls,
 * live events and retries go on), with the last error as its title. Announced politely to screen readers.
 */
export function ReconnectingNotice({ error }: { error: unknown }) {
  return (
    <Group gap={6} role="status" aria-live="polite" data-testid="reconnecting" title={error ? errorMessage(error) : undefined} wrap="nowrap">
      <Loader size={12} color="orange" aria-hidden />
      <Text size="xs" c="orange.8">
        Reconnecting…
      </Text>
    </Group>
  );
}
