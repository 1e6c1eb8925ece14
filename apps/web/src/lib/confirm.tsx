import { modals } from '@mantine/modals';
import { Text } from '@mantine/core';
import { mountOverlays } from './deferred-overlays.ts';

/**
 * Asks the user to confirm an action (spec §5 confirmations). Resolves true on Confirm, false on Cancel
 * or close. One modal style for every confirmation in the app.
 */
export async function confirmAction(message: string, options: { title?: string; confirmLabel?: string; danger?: boolean } = {}): Promise<boolean> {
  // The modals' host mounts after the first screen; a confirmation asked for before that waits for it.
  await mountOverlays();
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: options.title ?? 'Please confirm',
      children: <Text size="sm">{message}</Text>,
      labels: { confirm: options.confirmLabel ?? 'Confirm', cancel: 'Cancel' },
      confirmProps: { color: options.danger === false ? 'blue' : 'red' },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}
