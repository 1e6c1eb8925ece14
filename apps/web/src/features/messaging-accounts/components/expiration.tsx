import { Badge, Stack, Text } from '@mantine/core';

/** Tokens expiring within this many days are highlighted, so the owner reconnects in time (issue 9 §5). */
export const EXPIRY_WARNING_DAYS = 7;
const DAY_MS = 86_400_000;

export type ExpiryState = 'none' | 'ok' | 'soon' | 'reconnect';

/**
 * How an account's token stands: 'reconnect' once Meta rejected it (reconnectNeeded) or its date has passed,
 * 'soon' within EXPIRY_WARNING_DAYS, 'ok' later, 'none' without an expiry (Page tokens, Twilio, gateways).
 */
export function expiryState(value: string | null, reconnectNeeded = false, now = Date.now()): ExpiryState {
  if (reconnectNeeded) return 'reconnect';
  if (!value) return 'none';
  const left = new Date(value).getTime() - now;
  if (left <= 0) return 'reconnect';
  return left <= EXPIRY_WARNING_DAYS * DAY_MS ? 'soon' : 'ok';
}

/** Mantine badges cut their label with an ellipsis; these words must stay whole (the column widens instead). */
const NO_TRUNCATION = { root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible', textOverflow: 'clip' } } as const;

/**
 * An account's expiration date on the admin list (spec §2.7), with a red "reconnect needed" badge when the
 * token no longer works and an orange one when it expires within 7 days.
 */
export function Expiration({ value, reconnectNeeded = false }: { value: string | null; reconnectNeeded?: boolean }) {
  const state = expiryState(value, reconnectNeeded);
  const date = value ? new Date(value).toLocaleDateString(undefined, { timeZone: 'UTC' }) : null;
  return (
    <Stack gap={4} align="flex-start" style={{ whiteSpace: 'nowrap' }}>
      <Text size="sm" component="span" c={state === 'soon' ? 'orange.8' : date ? undefined : 'dimmed'} fw={state === 'soon' ? 600 : undefined}>
        {date ?? '—'}
      </Text>
      {state === 'reconnect' && (
        <Badge color="red" variant="light" size="sm" tt="none" styles={NO_TRUNCATION}>
          reconnect needed
        </Badge>
      )}
      {state === 'soon' && (
        <Badge color="orange" variant="light" size="sm" tt="none" styles={NO_TRUNCATION}>
          expires soon
        </Badge>
      )}
    </Stack>
  );
}
