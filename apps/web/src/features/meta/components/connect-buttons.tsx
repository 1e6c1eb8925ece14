import { Button, Group } from '@mantine/core';
import { useState } from 'react';
import { toastError } from '../../../lib/toast.ts';
import { type ConnectType, startMetaOAuth } from '../api/meta.ts';

const LABELS: Record<ConnectType, string> = {
  INSTAGRAM: 'Connect Instagram',
  FACEBOOK: 'Connect Facebook Page',
  WHATSAPP: 'Connect WhatsApp',
};
const COLORS: Record<ConnectType, string> = { INSTAGRAM: 'grape', FACEBOOK: 'blue', WHATSAPP: 'green' };

/** The three connect buttons of the profile and the consent page; each opens its OAuth dialog. */
export function ConnectButtons() {
  const [busy, setBusy] = useState<ConnectType | null>(null);
  const start = async (type: ConnectType) => {
    setBusy(type);
    try {
      await startMetaOAuth(type);
    } catch (err) {
      toastError(err);
      setBusy(null);
    }
  };
  return (
    <Group>
      {(Object.keys(LABELS) as ConnectType[]).map((type) => (
        <Button key={type} color={COLORS[type]} variant="light" loading={busy === type} disabled={busy !== null && busy !== type} onClick={() => start(type)}>
          {LABELS[type]}
        </Button>
      ))}
    </Group>
  );
}

/** Starts the connect flow of one account type again (a rejected or expired token). */
export function ReconnectButton({ type }: { type: ConnectType }) {
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    try {
      await startMetaOAuth(type);
    } catch (err) {
      toastError(err);
      setBusy(false);
    }
  };
  return (
    <Button size="xs" color="red" variant="outline" loading={busy} onClick={start}>
      Reconnect
    </Button>
  );
}
