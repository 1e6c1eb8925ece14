import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { loginThrottles } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { rowsOf } from '../../lib/limits.ts';
import { sha256Hex } from '../../lib/crypto.ts';

/**
 * Password guesses against one account, whatever address they come from (the per-address limit is
 * AUTH_RATE_LIMIT). Each check of a password counts as an attempt before the password is verified, so
 * concurrent guesses on several instances cannot slip past the count; a success clears it. The first
 * FREE_ATTEMPTS are free; from then on the account is locked for 1, 2, 4, 8, then at most 15 minutes after each
 * further failure. Never permanent: a lock ends by itself, and a password reset ends it too. The state is a
 * row per email (its SHA-256, known account or not, so the answer never tells which emails exist), shared by
 * every instance on one database.
 */
export const FREE_ATTEMPTS = 5;
export const MAX_LOCK_MS = 15 * 60_000;
/**
 * A count with no attempt for this long starts again from zero. A day, so that pausing cannot buy new free
 * attempts: at most about 100 guesses a day (one per 15-minute lock) get checked against one account.
 */
const FORGET_AFTER_MS = 24 * 60 * 60_000;

export const lockMs = (failures: number) => (failures < FREE_ATTEMPTS ? 0 : Math.min(2 ** (failures - FREE_ATTEMPTS) * 60_000, MAX_LOCK_MS));

const keyOf = (email: string) => sha256Hex(`login:${email.trim().toLowerCase()}`);

export function accountLocked(ttlMs: number): AppError {
  const minutes = Math.max(1, Math.ceil(ttlMs / 60_000));
  return new AppError(429, 'ACCOUNT_LOCKED', `Too many attempts for this account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
}

/**
 * Counts one password attempt on `email`, or throws 429 ACCOUNT_LOCKED (without counting) while the account is
 * locked. Call before verifying the password; call `clearAttempts` after a success.
 */
export async function countAttempt(ctx: AppContext, email: string): Promise<void> {
  const key = keyOf(email);
  const lockedFor = await ctx.db.transaction(async (tx) => {
    await tx.insert(loginThrottles).values({ key, failures: 0 }).onConflictDoNothing();
    // The row lock serializes the attempts on one account across every instance until the commit.
    const [row] = rowsOf<{ failures: number; last_ms: number; locked_ms: number | null; now_ms: number }>(
      await tx.execute(sql`
        select failures,
               extract(epoch from last_attempt_at) * 1000 as last_ms,
               extract(epoch from locked_until) * 1000 as locked_ms,
               extract(epoch from now()) * 1000 as now_ms
        from login_throttles where key = ${key} for update`),
    );
    const now = Number(row.now_ms);
    const lockedMs = row.locked_ms === null ? null : Number(row.locked_ms);
    if (lockedMs !== null && lockedMs > now) return lockedMs - now;
    const failures = (now - Number(row.last_ms) > FORGET_AFTER_MS ? 0 : Number(row.failures)) + 1;
    const lock = lockMs(failures);
    await tx
      .update(loginThrottles)
      .set({ failures, lastAttemptAt: new Date(now), lockedUntil: lock ? new Date(now + lock) : null })
      .where(eq(loginThrottles.key, key));
    return 0;
  });
  if (lockedFor > 0) throw accountLocked(lockedFor);
  // Rows of accounts nobody tried for a day are dropped now and then (cheap; no job needed).
  if (Math.random() < 0.02) {
    await ctx.db.execute(sql`delete from login_throttles where last_attempt_at < now() - interval '1 day' and (locked_until is null or locked_until < now())`);
  }
}

/** A right password or a password reset: the account's count starts again. */
export async function clearAttempts(ctx: AppContext, email: string): Promise<void> {
  await ctx.db.delete(loginThrottles).where(eq(loginThrottles.key, keyOf(email)));
}
