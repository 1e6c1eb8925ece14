import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { messagingAccounts } from '../../db/schema/index.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { MetaOAuthFake } from '../../test/fakes/meta-oauth-fake.ts';
import { refreshExpiringTokens } from './token-refresh.job.ts';

const fake = useFake(new MetaOAuthFake());
const t = useTestApp({ env: () => fake.env() });

const DAY = 86_400_000;

async function account(type: 'INSTAGRAM' | 'WHATSAPP', token: string, expiresInDays: number, config = '{}') {
  const [row] = await t.ctx.db
    .insert(messagingAccounts)
    .values({ type, pageId: `p-${Math.random()}`, pageName: 'Acme', accessTokenEncrypted: t.ctx.secrets.seal(token), expirationDate: new Date(Date.now() + expiresInDays * DAY), config })
    .returning();
  return row;
}
const reload = async (id: number) => (await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, id)))[0];

describe('refreshExpiringTokens', () => {
  it('refreshes tokens near expiry, leaves later ones, and flags a rejected token (190) for reconnecting', async () => {
    const nearIg = await account('INSTAGRAM', fake.issueInstagramToken(3 * 86_400), 3, '{"login":"instagram"}');
    const nearWa = await account('WHATSAPP', fake.issueUserToken(), 5);
    const later = await account('INSTAGRAM', fake.issueInstagramToken(), 40, '{"login":"instagram"}');
    const revokedToken = fake.issueInstagramToken(2 * 86_400);
    fake.revoke(revokedToken);
    const revoked = await account('INSTAGRAM', revokedToken, 2, '{"login":"instagram"}');

    const now = new Date();
    expect(await refreshExpiringTokens(t.ctx, now)).toEqual({ refreshed: 2, rejected: 1 });

    const ig = await reload(nearIg.id);
    expect(ig.expirationDate!.getTime()).toBeGreaterThan(Date.now() + 59 * DAY);
    expect(ig.accessTokenEncrypted).not.toBe(nearIg.accessTokenEncrypted);
    expect(fake.requests.some((r) => r.path === '/refresh_access_token' && r.query.grant_type === 'ig_refresh_token')).toBe(true);
    expect((await reload(nearWa.id)).expirationDate!.getTime()).toBeGreaterThan(Date.now() + 59 * DAY);
    expect(fake.requests.some((r) => r.query.grant_type === 'fb_exchange_token')).toBe(true);
    expect((await reload(later.id)).accessTokenEncrypted).toBe(later.accessTokenEncrypted);
    // Rejected: flagged, which the profile and the accounts list show as "reconnect needed"; not tried again.
    const flagged = await reload(revoked.id);
    expect(flagged.tokenRejectedAt!.getTime()).toBe(now.getTime());
    expect(flagged.expirationDate!.getTime()).toBe(revoked.expirationDate!.getTime());
    expect(await refreshExpiringTokens(t.ctx, new Date(now.getTime() + 1))).toEqual({ refreshed: 0, rejected: 0 });
  });

  it('keeps a token when Meta fails for another reason (retried on the next run)', async () => {
    const row = await account('INSTAGRAM', fake.issueInstagramToken(86_400), 1, '{"login":"instagram"}');
    fake.failNext('/refresh_access_token', 500, { error: { message: 'An unexpected error has occurred.', type: 'OAuthException', code: 2 } });
    expect((await refreshExpiringTokens(t.ctx)).rejected).toBe(0);
    expect((await reload(row.id)).expirationDate!.getTime()).toBe(row.expirationDate!.getTime());
  });
});
