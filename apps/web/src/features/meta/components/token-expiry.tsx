import { Badge, Text } from '@mantine/core';
import { expiryState } from '../../messaging-accounts/components/expiration.tsx';

/**
 * A connected account's token on the profile: "Reconnect needed" once Meta rejected it or it expired,
 * highlighted when it expires within 7 days (issue 9 §5), the date otherwise.
 */
export function TokenExpiry({ expirationDate, reconnectNeeded = false }: { expirationDate: string | null; reconnectNeeded?: boolean }) {
  const state = expiryState(expirationDate, reconnectNeeded);
  const date = expirationDate ? new Date(expirationDate).toLocaleDateString() : '';
  if (state === 'reconnect') return <Badge color="red">Reconnect needed</Badge>;
  if (state === 'none') return <Text size="sm" c="dimmed">No expiry</Text>;
  if (state === 'soon') return <Badge color="orange">Expires {date}</Badge>;
  return <Text size="sm">Expires {date}</Text>;
}
