import { Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useAuth } from '../../../lib/auth.ts';
import { type ConnectType, metaConfigQuery, useStartMetaOAuth } from '../api/meta.ts';

const LABELS: Record<ConnectType, string> = {
  INSTAGRAM: 'Connect Instagram',
  FACEBOOK: 'Connect Facebook Page',
  WHATSAPP: 'Connect WhatsApp',
};
const COLORS: Record<ConnectType, string> = { INSTAGRAM: 'grape', FACEBOOK: 'blue', WHATSAPP: 'green' };

/**
 * Why connecting cannot start on this server (issue 24): an ADMIN reads what to set, a team member whom to ask.
 * The server's answer to a click would say the same, but only after the click.
 */
function notConfiguredReason(isAdmin: boolean): string {
  return isAdmin
    ? 'Connecting accounts needs the Meta app on the server: set META_APP_ID and META_APP_SECRET (Instagram also INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET), see docs/meta-connect.md.'
    : 'Connecting accounts is not set up on this server yet. Ask your admin.';
}

/**
 * The three connect buttons of the profile and the consent page; each opens its OAuth dialog. A flow the
 * server cannot start (no Meta app configured) is a disabled button with the reason under the row.
 */
export function ConnectButtons() {
  const { start, starting } = useStartMetaOAuth();
  const config = useQuery(metaConfigQuery());
  const { isAdmin } = useAuth();
  // Until the server has answered (or when it does not say), a button stays usable: its click still explains.
  const can = (type: ConnectType) => config.data?.canConnect?.[type] ?? true;
  const blocked = (Object.keys(LABELS) as ConnectType[]).some((type) => !can(type));
  return (
    <Stack gap={6}>
      <Group>
        {(Object.keys(LABELS) as ConnectType[]).map((type) => (
          <Button
            key={type}
            color={COLORS[type]}
            variant="light"
            loading={starting === type}
            disabled={!can(type) || (starting !== null && starting !== type)}
            aria-describedby={can(type) ? undefined : 'connect-not-configured'}
            onClick={() => start(type)}
          >
            {LABELS[type]}
          </Button>
        ))}
      </Group>
      {blocked ? (
        <Text id="connect-not-configured" size="sm" c="dimmed" data-testid="connect-not-configured">
          {notConfiguredReason(isAdmin)}
        </Text>
      ) : null}
    </Stack>
  );
}

/** Starts the connect flow of one account type again (a rejected or expired token). */
export function ReconnectButton({ type }: { type: ConnectType }) {
  const { start, starting } = useStartMetaOAuth();
  return (
    <Button size="xs" color="red" variant="outline" loading={starting !== null} onClick={() => start(type)}>
      Reconnect
    </Button>
  );
}
