import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type { AppContext } from '../../context.ts';
import { maskSecret } from '../../lib/crypto.ts';
import { badRequest } from '../../lib/errors.ts';
import { openSealedValue, SEALED_PREFIX } from '../../lib/sealed-value.ts';

/**
 * The GoHighLevel `apiKey` of a conversation type's config is a secret (docs/crm.md). The config is stored
 * as the admin's own text (formatting and unknown fields kept), so the key is replaced *inside that text*:
 * by `sealed:<AES-GCM box>` when stored, and by a mask (`••••` + last 4) in every answer. Saving the masked
 * value back keeps the stored key, so the config editor round-trips without ever holding the key.
 */
const MASK_PREFIX = '••••';
/** Longest token accepted; its sealed form must still fit the config schema's apiKey limit (4000). */
const API_KEY_MAX = 2000;

/** The `apiKey` (or `field`, a dotted path such as `booking.apiKey`) string of a config text, when it has one. */
function topLevelApiKey(text: string, field = 'apiKey'): string | undefined {
  try {
    let value: unknown = JSON.parse(text);
    for (const part of field.split('.')) {
      // Arrays are walked by index (tools.0.secret).
      if (!value || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[part];
    }
    return typeof value === 'string' ? value : undefined;
  } catch {
    // Not JSON: nothing to seal or mask (the validator has already refused it on save).
  }
  return undefined;
}

/**
 * Replaces the JSON string literal(s) of `"apiKey": "<current>"` with `next`, keeping the rest of the text
 * byte for byte. Falls back to re-serialising when the literal cannot be found (exotic escapes in the key name).
 */
function replaceApiKey(text: string, current: string, next: string, field = 'apiKey'): string {
  let found = false;
  // The literal is found by its key name and current value, so a nested key (booking.apiKey) works the same.
  const name = field.split('.').at(-1)!;
  const replaced = text.replace(new RegExp(`("${name}"\\s*:\\s*)"((?:[^"\\\\]|\\\\.)*)"`, 'g'), (match, head: string, literal: string) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(`"${literal}"`);
    } catch {
      return match;
    }
    if (decoded !== current) return match;
    found = true;
    return `${head}${JSON.stringify(next)}`;
  });
  if (found) return replaced;
  const value = JSON.parse(text) as Record<string, unknown>;
  const parts = field.split('.');
  let holder = value;
  for (const part of parts.slice(0, -1)) holder = holder[part] as Record<string, unknown>;
  holder[parts.at(-1)!] = next;
  return JSON.stringify(value, null, 2);
}

/** Opens a stored key; null when it cannot be read (sealed under another APP_SECRET). Plain legacy text passes. */
export function openApiKey(ctx: AppContext, stored: string): string | null {
  return openSealedValue(ctx.secrets, stored);
}

function maskOf(ctx: AppContext, stored: string): string {
  const plain = openApiKey(ctx, stored);
  return plain === null ? MASK_PREFIX : maskSecret(plain);
}

/** The config text as every answer shows it: the apiKey masked. */
export function maskConfigSecrets(ctx: AppContext, text: string, field = 'apiKey'): string {
  const stored = topLevelApiKey(text, field);
  return stored === undefined ? text : replaceApiKey(text, stored, maskOf(ctx, stored), field);
}

/**
 * The config text to store, given the (already validated) submitted text and the text stored before: a new
 * apiKey is sealed; the masked value of the stored key keeps it; any other masked-looking value is refused,
 * since it cannot be a real key and would silently lose the stored one.
 */
export function sealConfigSecrets(
  ctx: AppContext,
  submitted: string,
  previous: string | null | undefined,
  field = 'apiKey',
  fullValue = 'the full GoHighLevel token',
): string {
  const key = topLevelApiKey(submitted, field);
  if (key === undefined) return submitted;
  if (key.startsWith(MASK_PREFIX)) {
    const stored = previous ? topLevelApiKey(previous, field) : undefined;
    if (stored !== undefined && maskOf(ctx, stored) === key) return replaceApiKey(submitted, key, stored, field);
    throw badRequest(
      `Invalid configuration: ${field}: this masked value does not match the stored key; paste ${fullValue}.`,
      'INVALID_CONFIG',
    );
  }
  if (key.trim().length > API_KEY_MAX) {
    throw badRequest(`Invalid configuration: ${field}: too long (at most ${API_KEY_MAX} characters).`, 'INVALID_CONFIG');
  }
  return replaceApiKey(submitted, key, SEALED_PREFIX + ctx.secrets.seal(key.trim()), field);
}

/** The CRM settings of a stored config text, with the apiKey still sealed. */
export function readCrmSettings(text: string | null | undefined) {
  const config = readConversationTypeConfig(text);
  return {
    linked: config.crm === 'GHL',
    locationId: config.locationId,
    sealedApiKey: topLevelApiKey(text ?? ''),
    stageOnOutcome: config.stageOnOutcome ?? {},
  };
}
