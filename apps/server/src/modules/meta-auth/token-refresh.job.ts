import { and, eq, gt, inArray, isNotNull, isNull, lt } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { messagingAccounts } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/runner.ts';
import { flagTokenRejected, readAccessToken } from '../messaging-accounts/access.ts';
import { GraphOAuthError, graphOAuthClient, TOKEN_REJECTED } from './graph-oauth.client.ts';

/** Long-lived tokens last ~60 days; refreshing those within 10 days of expiry leaves several daily retries. */
export const REFRESH_WITHIN_DAYS = 10;
const DAY_MS = 86_400_000;
export const TOKEN_REFRESH_JOB = 'meta-token-refresh';

/**
 * Refreshes the long-lived tokens that expire soon: Instagram Login tokens with `refresh_access_token`,
 * Facebook Login tokens by exchanging them again (`fb_exchange_token`), storing the new token sealed with
 * its new expiry. A token Meta rejects (190) is flagged (tokenRejectedAt), which every screen shows as
 * "reconnect needed", and is not tried again; other failures are left for the next day's run.
 */
export async function refreshExpiringTokens(ctx: AppContext, now = new Date()): Promise<{ refreshed: number; rejected: number }> {
  const due = await ctx.db
    .select()
    .from(messagingAccounts)
    .where(
      and(
        inArray(messagingAccounts.type, ['INSTAGRAM', 'FACEBOOK', 'WHATSAPP']),
        isNotNull(messagingAccounts.expirationDate),
        isNull(messagingAccounts.tokenRejectedAt),
        gt(messagingAccounts.expirationDate, now),
        lt(messagingAccounts.expirationDate, new Date(now.getTime() + REFRESH_WITHIN_DAYS * DAY_MS)),
      ),
    );
  const graph = graphOAuthClient(ctx.config);
  let refreshed = 0;
  let rejected = 0;
  for (const account of due) {
    const instagramLogin = account.type === 'INSTAGRAM' && readLogin(account.config) === 'instagram';
    try {
      const token = readAccessToken(ctx, account);
      const fresh = instagramLogin ? await graph.instagramRefresh(token) : await graph.exchangeLongLived(token);
      await ctx.db
        .update(messagingAccounts)
        .set({
          accessTokenEncrypted: ctx.secrets.seal(fresh.accessToken),
          expirationDate: fresh.expiresIn ? new Date(now.getTime() + fresh.expiresIn * 1000) : null,
        })
        .where(eq(messagingAccounts.id, account.id));
      refreshed += 1;
    } catch (err) {
      if (!(err instanceof GraphOAuthError)) throw err;
      ctx.log.warn({ accountId: account.id, type: account.type, metaCode: err.code, reason: err.message }, 'token refresh failed');
      if (err.code === TOKEN_REJECTED) {
        await flagTokenRejected(ctx, account.id, now);
        rejected += 1;
      }
    }
  }
  return { refreshed, rejected };
}

function readLogin(config: string): unknown {
  try {
    return (JSON.parse(config) as { login?: unknown }).login;
  } catch {
    return undefined;
  }
}

/**
 * Queues a run. The key is the run's day: a running job holds its own key, so it can queue tomorrow's, and
 * every instance that starts (or restarts) the same day lands on the one waiting run of that day.
 */
export async function scheduleTokenRefresh(ctx: AppContext, runAt = new Date()): Promise<void> {
  await ctx.jobs.enqueue(TOKEN_REFRESH_JOB, {}, { runAt, singletonKey: `${TOKEN_REFRESH_JOB}:${runAt.toISOString().slice(0, 10)}` });
}

export const tokenRefreshJob: JobDefinition<z.ZodObject<Record<string, never>>> = {
  name: TOKEN_REFRESH_JOB,
  payload: z.object({}),
  async handler(ctx) {
    const result = await refreshExpiringTokens(ctx);
    ctx.log.info(result, 'meta token refresh done');
    await scheduleTokenRefresh(ctx, new Date(Date.now() + DAY_MS));
  },
};
