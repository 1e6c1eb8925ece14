import { Badge, Text } from '@mantine/core';

/** An account's expiration date, with a warning badge once it has passed (tokens stop working then). */
export function Expiration({ value }: { value: string | null }) {
  if (!value) return <Text c="dimmed">—</Text>;
  const date = new Date(value);
  const expired = date.getTime() < Date.now();
  return (
    <Text size="sm" component="span">
      {date.toLocaleDateString(undefined, { timeZone: 'UTC' })}
      {expired && (
        <Badge color="red" variant="light" ml="xs" size="sm">
          expired
        </Badge>
      )}
    </Text>
  );
}
