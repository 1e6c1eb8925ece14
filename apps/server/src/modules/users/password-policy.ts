import { dictionary } from '@zxcvbn-ts/language-common';
import { badRequest } from '../../lib/errors.ts';

/**
 * The passwords attackers try first: zxcvbn-ts's common-password list (about 49,000 entries from breach
 * corpora, maintained with the zxcvbn-ts project). Compared lower-cased, so "Password1" is as refused as
 * "password1". Built once, on first use.
 */
let common: Set<string> | null = null;
const commonPasswords = () => (common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())));

/**
 * The policy beyond the spec's length rule (checked by the request schema with the spec's message): a password
 * from the common list, or the account's own email, is refused with 400 and a sentence saying why.
 */
export function assertPasswordAllowed(password: string, email?: string): void {
  const lowered = password.trim().toLowerCase();
  if (commonPasswords().has(lowered)) {
    throw badRequest('This password is one of the most common passwords and easy to guess. Please choose another one.', 'PASSWORD_TOO_COMMON');
  }
  if (email && (lowered === email.toLowerCase() || lowered === email.toLowerCase().split('@')[0])) {
    throw badRequest('Your password must not be your email address. Please choose another one.', 'PASSWORD_TOO_COMMON');
  }
}
