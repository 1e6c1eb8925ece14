import { Alert, Button, Stack, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A secret or link the server answers only once (a new API key, a webhook signing secret, an invitation link):
 * a green notice with the value in a read-only box that selects itself on focus, and, with `onDone`, an
 * "I have copied it" button that closes it.
 */
export function ShownOnce({
  title,
  label,
  value,
  testId,
  onDone,
  children,
}: {
  title: string;
  /** The box's accessible name. */
  label: string;
  value: string;
  testId: string;
  onDone?: () => void;
  /** Words shown above the box. */
  children?: ReactNode;
}) {
  return (
    <Alert color="green" mt="md" title={title} data-testid={testId}>
      <Stack gap="xs" align="flex-start">
        {children}
        <TextInput aria-label={label} readOnly value={value} onFocus={(e) => e.currentTarget.select()} w="100%" />
        {onDone ? (
          <Button size="xs" variant="subtle" onClick={onDone}>
            I have copied it
          </Button>
        ) : null}
      </Stack>
    </Alert>
  );
}
