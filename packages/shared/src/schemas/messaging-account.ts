import { z } from 'zod';
import { ACCOUNT_TYPES } from '../enums.ts';
import { idParam, INT4_MAX, isStorableInstant } from './common.ts';
import { email } from './user.ts';

/** Access tokens of Meta, Twilio and gateways are far below this; it only stops absurd bodies. */
export const ACCESS_TOKEN_MAX = 4_096;
/** A messaging account's config is a small JSON object; 100 kB is far beyond any real one. */
export const ACCOUNT_CONFIG_MAX = 100_000;

const requiredText = (message: string, max = 500) => z.string().trim().min(1, message).max(max, `${message.replace(' is required', '')} is too long`);

/**
 * An expiration date: a calendar date (YYYY-MM-DD) or a full ISO date-time; null or '' clears it, absent
 * keeps it on edit. Stored as a timestamp (a calendar date means midnight UTC of that day).
 */
export const expirationDate = z
  .union([z.iso.date(), z.iso.datetime({ offset: true }), z.literal('')], { error: 'Expiration date must be an ISO date, e.g. 2030-12-31' })
  .refine((value) => value === '' || isStorableInstant(value), 'Expiration date must be in year 1 or later')
  .nullable()
  .optional()
  .transform((value) => (value === undefined ? undefined : value || null));

/**
 * POST /api/admin/messaging-accounts/create-edit (spec §5 messaging account form). With `id` it edits;
 * `accessToken` is write-only: required on create, and on edit an empty or absent value keeps the stored one.
 */
export const messagingAccountSaveBody = z.object({
  id: z.number().int().positive().max(INT4_MAX, 'no such id').optional(),
  type: z.enum(ACCOUNT_TYPES, { error: 'Type must be one of INSTAGRAM, FACEBOOK, TWILIO, WHATSAPP, SMS_GATEWAY' }),
  accessToken: z.string().trim().max(ACCESS_TOKEN_MAX, 'Access token is too long').nullable().optional(),
  pageId: requiredText('Page id is required'),
  pageName: requiredText('Page name is required'),
  expirationDate,
  /** Spec §5: an empty conversation type is sent as null. */
  conversationTypeId: z.number().int().positive().max(INT4_MAX, 'no such id').nullable().optional(),
});
export type MessagingAccountSaveBody = z.input<typeof messagingAccountSaveBody>;

/** A messaging account as the admin screens see it (spec §3). The token itself never leaves the server. */
export const messagingAccountView = z.object({
  id: z.number(),
  type: z.enum(ACCOUNT_TYPES),
  pageId: z.string(),
  pageName: z.string(),
  expirationDate: z.string().nullable(),
  conversationTypeId: z.number().nullable(),
  conversationType: z.object({ id: z.number(), title: z.string().nullable() }).nullable(),
  config: z.string(),
  user_messaging_accounts: z.array(z.object({ id: z.number(), user: z.object({ email: z.string() }) })),
  /** Always true: every account has a token. Shown so the form can say "a token is set". */
  accessTokenSet: z.boolean(),
  /** The last characters of the token, masked (e.g. '••••a1b2'); null when it cannot be read. */
  accessTokenHint: z.string().nullable(),
  /** Meta rejected the token (code 190) or it has expired: the owner must connect the account again. */
  reconnectNeeded: z.boolean(),
});
export type MessagingAccountView = z.infer<typeof messagingAccountView>;

export const messagingAccountSaved = z.object({
  message: z.string(),
  messagingAccount: z.object({ id: z.number() }),
});

/** POST /api/admin/user-messaging-accounts/create (spec §5 permission create). */
export const permissionCreateBody = z.object({
  userEmail: email,
  messagingAccountId: z
    .number({ error: 'Messaging account is required' })
    .int()
    .positive('Messaging account is required')
    .max(INT4_MAX, 'Messaging account not found'),
});
export type PermissionCreateBody = z.infer<typeof permissionCreateBody>;

/** One user-to-account permission (spec §3). */
export const permissionView = z.object({
  id: z.number(),
  user: z.object({ email: z.string() }),
  messagingAccountId: z.number(),
  messagingAccount: z.object({ pageName: z.string() }),
});
export type PermissionView = z.infer<typeof permissionView>;

/**
 * One account on a user's profile (GET /api/user/{email}/messaging-accounts, spec §7.1): the grant and the
 * account's public fields, never its token.
 */
export const userMessagingAccountView = z.object({
  /** The grant's id (user_messaging_accounts). */
  id: z.number(),
  messagingAccountId: z.number(),
  /** The profile's user connected (or, as ADMIN, created) this account: they may delete it; others only remove their grant. */
  isOwner: z.boolean(),
  /** The account's public fields, as the admin screens see them. */
  messagingAccount: messagingAccountView.pick({ id: true, type: true, pageId: true, pageName: true, expirationDate: true, conversationTypeId: true, reconnectNeeded: true }),
});
export type UserMessagingAccountView = z.infer<typeof userMessagingAccountView>;

/** Path parameter of DELETE /api/user/messaging-accounts/{messagingAccountId}. */
export const messagingAccountIdParams = z.object({ messagingAccountId: idParam });
