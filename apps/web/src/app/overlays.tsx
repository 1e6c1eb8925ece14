import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { overlaysMounted } from '../lib/deferred-overlays.ts';
import './toasts.css';

/**
 * The toast area (spec §2.1: at the top of the layout) and the host of the confirmation modals (lib/confirm.tsx),
 * loaded lazily by providers.tsx. The modals are opened through @mantine/modals' `modals` events only, so the
 * provider needs no children.
 */
export default function Overlays() {
  // A parent's effects run after its children's: ModalsProvider listens by now.
  useEffect(() => overlaysMounted(), []);
  return (
    <>
      <Notifications position="top-center" limit={5} zIndex={1000} classNames={{ root: 'app-toasts' }} />
      <ModalsProvider />
    </>
  );
}
