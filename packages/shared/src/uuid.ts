/**
 * The one uuid pattern of server and web: 8-4-4-4-12 hex digits as PostgreSQL prints them (any version).
 * `UUID_SOURCE` is for patterns that embed a uuid (storage keys, stream bindings); they stay lowercase.
 */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

// Either case: PostgreSQL reads an uppercase uuid as the same value.
const UUID = new RegExp(`^${UUID_SOURCE}$`, 'i');

/** A whole uuid, nothing around it. (A string argument is not narrowed: its other branch stays a string.) */
export function isUuid(value: string): boolean;
export function isUuid(value: unknown): value is string;
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}
