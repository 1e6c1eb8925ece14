import { z } from 'zod';
import { email, registerBody } from './user.ts';

/** REGISTRATION (docs/deployment.md): who may create an account on this server. */
export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** GET /api/user/registration: what the register page shows before anyone types (the sentence when not open). */
export const registrationInfo = z.object({ mode: z.enum(REGISTRATION_MODES), message: z.string().nullable() });
export type RegistrationInfo = z.infer<typeof registrationInfo>;

/** POST /api/user/register: the invitation link's token rides along when there is one. */
export const registerWithInvitationBody = registerBody.extend({ invitation: z.string().trim().min(1).max(200).optional() });

export const invitationCreateBody = z.object({ email });
export type InvitationCreateBody = z.infer<typeof invitationCreateBody>;

export const invitationView = z.object({
  id: z.number(),
  email: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type InvitationView = z.infer<typeof invitationView>;

/** The created invitation, with the only copy of its link (the server keeps a hash of the token). */
export const invitationCreated = invitationView.extend({ link: z.string(), message: z.string() });
export type InvitationCreated = z.infer<typeof invitationCreated>;
