import { Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { conversationQuery } from '../api/conversations.ts';
import { Bookings } from './agent-actions.tsx';

/** The inbox panel's meetings (issue 22): the conversation's bookings, from the open conversation's query. */
export function PanelBookings({ uuid }: { uuid: string }) {
  const detail = useQuery(conversationQuery(uuid));
  const bookings = detail.data?.bookings ?? [];
  if (bookings.length === 0) return null;
  return (
    <Stack gap={4} mt="xs" data-testid="panel-bookings">
      <Title order={3} fz="sm">
        Meetings
      </Title>
      <Bookings bookings={bookings} />
    </Stack>
  );
}
