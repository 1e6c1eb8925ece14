import { notifications } from '@mantine/notifications';
import { LIMITS } from '@sales-agent/shared/limits';
import { errorMessage } from './api-client.ts';

export type ToastType = 'success' | 'error' | 'info';

const COLORS: Record<ToastType, string> = { success: 'green', error: 'red', info: 'blue' };

/** A toast (spec §3/§4): shown in the toast area, closes after 3 s or when closed. */
export function showToast(message: string, type: ToastType = 'info'): void {
  notifications.show({
    message,
    color: COLORS[type],
    autoClose: LIMITS.toastLifetimeMs,
    withCloseButton: true,
    // The close button's accessible name (axe button-name).
    closeButtonProps: { 'aria-label': 'Close notification' },
    withBorder: true,
    // data attribute lets tests find toasts by type
    ...({ 'data-toast-type': type } as object),
  });
}

export const toastSuccess = (message: string) => showToast(message, 'success');
export const toastError = (err: unknown) => showToast(typeof err === 'string' ? err : errorMessage(err), 'error');
