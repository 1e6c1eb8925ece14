import { Alert, Center, Loader } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../lib/api-client.ts';
import { isRefreshFailing, ReconnectingNotice } from './reconnecting-notice.tsx';

/**
 * The loading and error states every data screen shares: a loader announced to screen readers while the
 * query is pending, a red alert with the error text (spec §8.1) when it failed, otherwise `children(data)`.
 * A failed background refresh keeps the data on screen under a "Reconnecting…" notice (issue 18).
 */
export function QueryState<T>(props: { query: UseQueryResult<T>; title: string; children(data: T): ReactNode }) {
  const { query } = props;
  if (query.isPending) {
    return (
      <Center py="md" role="status" aria-label={`Loading ${props.title.toLowerCase()}`}>
        <Loader />
      </Center>
    );
  }
  if (query.isError && query.data === undefined) {
    return (
      <Alert color="red" title={props.title}>
        {errorMessage(query.error)}
      </Alert>
    );
  }
  return (
    <>
      {isRefreshFailing(query) && <ReconnectingNotice error={query.error ?? query.failureReason} />}
      {props.children(query.data as T)}
    </>
  );
}
