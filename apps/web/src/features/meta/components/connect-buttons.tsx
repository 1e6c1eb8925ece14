import { Button, Group } from '@mantine/core';
import { type ConnectType, useStartMetaOAuth } from '../api/meta.ts';

const LABELS: Record<ConnectType, string> = {
  INSTAGRAM: 'Connect Instagram',
  FACEBOOK: 'Connect Facebook Page',
  WHATSAPP: 'Connect WhatsApp',
};
const COLORS: Record<ConnectType, string> = { INSTAGRAM: 'grape', FACEBOOK: 'blue', WHATSAPP: 'green' };

/** The three connect buttons of the profile and the consent page; each opens its OAuth dialog. */
export function ConnectButtons() {
  const { start, starting } = useStartMetaOAuth();
  return (
    <Group>
      {(Object.keys(LABELS) as ConnectType[]).map((type) => (
        <Button
          key={type}
          color={COLORS[type]}
          variant="light"
          loading={starting === type}
          disabled={starting !== null && starting !== type}
          onClick={() => start(type)}
        >
          {LABELS[type]}
        </Button>
      ))}
    </Group>
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
