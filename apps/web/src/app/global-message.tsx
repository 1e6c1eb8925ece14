import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { LIMITS } from '@sales-agent/shared/limits';
import { useEffect, useState } from 'react';
import { appConfigQuery } from '../features/admin/api/app-config.ts';
import { useAfterPaint } from '../lib/after-paint.ts';

const STORAGE_KEY = 'salesAgent.globalMessageShownAt';

/** True when the message was not shown on this device in the last 3 hours (spec §4). */
export function isGlobalMessageDue(now: number, storage: Pick<Storage, 'getItem'>): boolean {
  const last = Number(storage.getItem(STORAGE_KEY) ?? 0);
  return !Number.isFinite(last) || now - last >= LIMITS.globalMessageIntervalMs;
}

/** The optional global notification: once per 3 h per device, closes by itself after 10 s. */
export function GlobalMessage() {
  // Asked for after the first screen is painted: the message shows after it anyway.
  const painted = useAfterPaint();
  const { data } = useQuery({ ...appConfigQuery('globalMessage'), enabled: painted });
  const message = data?.trim() ?? '';
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!message || !isGlobalMessageDue(Date.now(), localStorage)) return;
    localStorage.setItem(STORAGE_KEY, String(Date.now()));
    setOpen(true);
    const timer = setTimeout(() => setOpen(false), LIMITS.globalMessageAutoCloseMs);
    return () => clearTimeout(timer);
  }, [message]);

  if (!open) return null;
  return (
    <Alert color="indigo" variant="filled" radius={0} withCloseButton closeButtonLabel="Close the message" onClose={() => setOpen(false)} role="status" aria-label="Global message">
      {message}
    </Alert>
  );
}
