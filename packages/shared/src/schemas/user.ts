import { z } from 'zod';
import { ROLES } from '../enums.ts';
import { LIMITS } from '../limits.ts';

export const email = z.string().trim().toLowerCase().min(1, 'Email is required').max(254).email('Email is not valid');

/** Spec §5: passwords are at least 8 characters. */
export const password = z
  .string()
  .min(LIMITS.passwordMinLength, 'Password must be at least 8 characters long')
  .max(1024, 'Password is too long');

export const loginBody = z.object({
  email,
  password: z.string().min(1, 'Password is required').max(1024, 'Password is too long'),
});
export type LoginBody = z.infer<typeof loginBody>;

export const registerBody = z.object({ email, password });
export type RegisterBody = z.infer<typeof registerBody>;

/** Set-password: the one-time link token of the set-password page (or the caller's own session) proves who asks. */
export const setPasswordBody = registerBody.extend({ token: z.string().trim().max(256).optional() });
export const setPasswordQuery = z.object({ token: z.string().trim().max(256).optional() });
export const changePasswordBody = z.object({
  currentPassword: z.string().min(1, 'Current password is required').max(1024, 'Password is too long'),
  newPassword: password,
});
export const forgotPasswordBody = z.object({ email });
export const resetLink = z.object({ url: z.string(), expiresAt: z.string() });
export const deleteUserBody = z.object({ email });

/** The session the web app keeps (spec §3). */
export const session = z.object({ email: z.string(), role: z.enum(ROLES) });
export type Session = z.infer<typeof session>;

export const emailParams = z.object({ email });

// Team management (issue 24, docs/workspace.md).
/** POST /api/admin/users/invite: a one-time link to set a password, mailed when SMTP is set. */
export const inviteUserBody = z.object({ email, role: z.enum(ROLES).default('NORMAL') });
export const teamUser = z.object({
  id: z.number(),
  email: z.string(),
  role: z.enum(ROLES),
  active: z.boolean(),
  /** Invited and has not set a password yet. */
  pending: z.boolean(),
  createdAt: z.string(),
  /** Messaging accounts granted (a NORMAL user sees only their conversations). */
  messagingAccountIds: z.array(z.number()),
});
export type TeamUser = z.infer<typeof teamUser>;
export const inviteUserResponse = z.object({ link: z.string(), mailed: z.boolean(), message: z.string(), user: teamUser });
export type InviteUserResponse = z.infer<typeof inviteUserResponse>;
export const patchUserBody = z
  .object({ role: z.enum(ROLES).optional(), active: z.boolean().optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.active !== undefined, 'Give role or active');
export type PatchUserBody = z.infer<typeof patchUserBody>;
