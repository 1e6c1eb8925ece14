import { and, eq, gt, lt } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { passwordTokens } from '../../db/schema/index.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';

export type PasswordTokenPurpose = 'FACEBOOK_LOGIN' | 'FORGOT_PASSWORD' | 'ADMIN_RESET' | 'INVITATION';

/**
 * How long each kind of set-password link works. A forgot-password email and the link Facebook login hands its
 * own browser are used at once; an ADMIN passes a reset link on by hand (chat, phone), so it gets a day.
 */
export const TOKEN_TTL_MS: Record<PasswordTokenPurpose, number> = {
  FACEBOOK_LOGIN: 60 * 60_000,
  FORGOT_PASSWORD: 60 * 60_000,
  ADMIN_RESET: 24 * 60 * 60_000,
  /** An ADMIN's invitation to the team (issue 24): a week, as registration invitations. */
  INVITATION: 7 * 24 * 60 * 60_000,
};

/** Issues a one-time token bound to the email (and its user); only its SHA-256 is stored. */
export async function issuePasswordToken(
  ctx: AppContext,
  input: { email: string; userId: number | null; purpose: PasswordTokenPurpose },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + TOKEN_TTL_MS[input.purpose]);
  // Expired links of anyone are dropped on the way (tokens are rare; no job needed).
  await ctx.db.delete(passwordTokens).where(lt(passwordTokens.expiresAt, new Date()));
  await ctx.db.insert(passwordTokens).values({ tokenHash: sha256Hex(token), email: input.email, userId: input.userId, purpose: input.purpose, expiresAt });
  return { token, expiresAt };
}

/** The link a token goes out in: the set-password page, which sends both back. */
export function setPasswordUrl(ctx: AppContext, email: string, token: string): string {
  const params = new URLSearchParams({ email, token });
  return `${ctx.config.PUBLIC_URL}/set-password?${params}`;
}

/** The unexpired token row for this token and this email, or null (unknown, expired, used, other email). */
export async function findPasswordToken(ctx: AppContext, token: string, email: string) {
  const [row] = await ctx.db
    .select()
    .from(passwordTokens)
    .where(and(eq(passwordTokens.tokenHash, sha256Hex(token)), gt(passwordTokens.expiresAt, new Date())))
    .limit(1);
  return row && row.email === email ? row : null;
}
