import type { SecretBox } from './crypto.ts';

/**
 * A secret inside a conversation type's config text (the GHL apiKey, booking.apiKey, a custom tool's header
 * values) is stored as `sealed:<AES-GCM box>` (lib/crypto.ts); older plain text passes through unchanged.
 */
export const SEALED_PREFIX = 'sealed:';

/** Opens a stored config secret; null when it cannot be read (sealed under another APP_SECRET). */
export function openSealedValue(secrets: SecretBox, stored: string): string | null {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  try {
    return secrets.open(stored.slice(SEALED_PREFIX.length));
  } catch {
    return null;
  }
}
