import { Badge, Text } from '@mantine/core';

/** Tokens expiring within this many days are highlighted, so the owner reconnects in time (issue 9 §5). */
export const EXPIRY_WARNING_DAYS = 7;

export function TokenExpiry({ expirationDate }: { expirationDate: string | null }) {
  if (!expirationDate) return <Text size="sm" c="dimmed">No expiry</Text>;
  const at = new Date(expirationDate);
  const daysLeft = (at.getTime() - Date.now()) / 86_400_000;
  if (daysLeft <= 0) return <Badge color="red">Expired: reconnect needed</Badge>;
  if (daysLeft <= EXPIRY_WARNING_DAYS) return <Badge color="orange">Expires {at.toLocaleDateString()}</Badge>;
  return <Text size="sm">Expires {at.toLocaleDateString()}</Text>;
}
