import { modals } from '@mantine/modals';
import { Text } from '@mantine/core';

/**
 * Asks the user to confirm an action (spec §5 confirmations). Resolves true on Confirm, false on Cancel
 * or close. One modal style for every confirmation in the app.
 */
export function confirmAction(message: string, options: { title?: string; confirmLabel?: string; danger?: boolean } = {}): Promise<boolean> {
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
