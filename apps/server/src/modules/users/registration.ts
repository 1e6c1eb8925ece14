import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { InvitationCreated, InvitationView, RegistrationInfo } from '@sales-agent/shared/schemas/invitation';
import type { AppConfig } from '../../config/env.ts';
import type { Actor, AppContext } from '../../context.ts';
import { invitations, users } from '../../db/schema/index.ts';
import { AppError, notFound } from '../../lib/errors.ts';

/**
 * REGISTRATION=open|invite|closed (docs/deployment.md "Safe first start"): who may create an account through
 * POST /api/user/register. With `invite` an ADMIN's invitation link lets one email register; `closed` refuses
 * everyone (accounts come from ADMIN_EMAIL, Meta login or an existing ADMIN).
 */
export const INVITATION_DAYS = 7;

const MESSAGES: Record<Exclude<AppConfig['REGISTRATION'], 'open'>, string> = {
  closed: 'Registration is closed on this server. Ask an administrator to create your account.',
  invite: 'Registration on this server is by invitation only. Ask an administrator for an invitation link.',
};
const INVALID_INVITATION =
  'This invitation link is not valid for this email: it may have expired or been used already, or it was made for another address. Ask an administrator for a new one.';

export function registrationInfo(config: AppConfig): RegistrationInfo {
  const mode = config.REGISTRATION;
  return { mode, message: mode === 'open' ? null : MESSAGES[mode] };
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Lets one registration through, or throws 403 with the sentence the register page shows. With `invite` the
 * invitation is claimed here (used once); `release` gives it back when the registration then fails.
 */
export async function admitRegistration(ctx: AppContext, email: string, token: string | undefined): Promise<{ release: () => Promise<void> }> {
  const none = { release: async () => {} };
  const mode = ctx.config.REGISTRATION;
  if (mode === 'open') return none;
  if (mode === 'closed') throw new AppError(403, 'REGISTRATION_CLOSED', MESSAGES.closed);
  if (!token) throw new AppError(403, 'REGISTRATION_INVITE_ONLY', MESSAGES.invite);
  const [claimed] = await ctx.db
    .update(invitations)
    .set({ usedAt: sql`now()` })
    .where(and(eq(invitations.tokenHash, hashToken(token)), eq(invitations.email, email), isNull(invitations.usedAt), gt(invitations.expiresAt, sql`now()`)))
    .returning({ id: invitations.id });
  if (!claimed) throw new AppError(403, 'INVITATION_INVALID', INVALID_INVITATION);
  return {
    release: async () => {
      await ctx.db.update(invitations).set({ usedAt: null }).where(eq(invitations.id, claimed.id));
    },
  };
}

function view(row: typeof invitations.$inferSelect): InvitationView {
  return { id: row.id, email: row.email, createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() };
}

/** A new invitation for `email` (an earlier unused one for it stops working); the link is only in this answer. */
export async function createInvitation(ctx: AppContext, actor: Actor, email: string): Promise<InvitationCreated> {
  const [existing] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (existing) throw new AppError(409, 'EMAIL_TAKEN', `${email} already has an account.`);
  const token = randomBytes(24).toString('base64url');
  const row = await ctx.db.transaction(async (tx) => {
    await tx.delete(invitations).where(and(eq(invitations.email, email), isNull(invitations.usedAt)));
    const [inserted] = await tx
      .insert(invitations)
      .values({ email, tokenHash: hashToken(token), createdBy: actor.id, expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000) })
      .returning();
    return inserted;
  });
  const link = `${ctx.config.PUBLIC_URL}/user/register?invitation=${token}&email=${encodeURIComponent(email)}`;
  const note = ctx.config.REGISTRATION === 'invite' ? '' : ` Note: REGISTRATION is "${ctx.config.REGISTRATION}" on this server, so the link only works once it is "invite".`;
  return { ...view(row), link, message: `Invitation for ${email} created. Send them the link; it works once, for ${INVITATION_DAYS} days.${note}` };
}

/** Invitations not used yet and not expired, newest first. */
export async function listInvitations(ctx: AppContext): Promise<InvitationView[]> {
  const rows = await ctx.db
    .select()
    .from(invitations)
    .where(and(isNull(invitations.usedAt), gt(invitations.expiresAt, sql`now()`)))
    .orderBy(sql`${invitations.id} desc`);
  return rows.map(view);
}

export async function revokeInvitation(ctx: AppContext, id: number): Promise<void> {
  const deleted = await ctx.db.delete(invitations).where(eq(invitations.id, id)).returning({ id: invitations.id });
  if (deleted.length === 0) throw notFound('This invitation does not exist (it may have been used or revoked already).', 'INVITATION_NOT_FOUND');
}

/** HOST is reachable from other machines (not a loopback address or name). */
export function isPublicHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return false;
  if (isIP(h) === 4) return !h.startsWith('127.');
  if (isIP(h) === 6) return h !== '::1';
  return true;
}

/**
 * The warning at start for a fresh public instance: anyone who can reach it may register, and the first account
 * becomes ADMIN. Null when there is nothing to warn about.
 */
export async function openRegistrationWarning(ctx: AppContext): Promise<string | null> {
  if (ctx.config.REGISTRATION !== 'open' || !isPublicHost(ctx.config.HOST)) return null;
  const [{ admins }] = await ctx.db.select({ admins: count() }).from(users).where(eq(users.role, 'ADMIN'));
  if (admins > 0) return null;
  return (
    `Registration is open, this server listens on ${ctx.config.HOST} (reachable from other machines) and there is no ADMIN yet: ` +
    'whoever registers first becomes ADMIN. Set REGISTRATION=invite with ADMIN_EMAIL and ADMIN_PASSWORD, or HOST=127.0.0.1 ' +
    'behind a proxy (docs/deployment.md).'
  );
}
