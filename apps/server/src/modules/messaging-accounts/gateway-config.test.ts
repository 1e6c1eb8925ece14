import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { endpointsOf, findAccountById } from '../../channels/accounts.ts';
import { smsGatewaySender } from '../../channels/senders/sms-gateway.ts';
import { ChannelSendError } from '../../channels/types.ts';
import { messagingAccounts } from '../../db/schema/index.ts';
import { isPublicAddress, outboundUrlProblem } from '../../lib/outbound-url.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { buildChannelAccount, postSmsGateway, smsGatewayEvent } from '../../test/channel-factories.ts';

/**
 * Issue 29 item 6: an SMS gateway account's signing key is masked like the CRM key, and its ADMIN-set baseUrl
 * obeys the private-address rule of outbound calls (here with ALLOW_PRIVATE_URLS off, as in production).
 */
const t = useTestApp({ env: { ALLOW_PRIVATE_URLS: 'false' } });
const admin = useUser(t, 'ADMIN');

const saveConfig = (id: number, config: unknown) =>
  t.request({
    method: 'POST',
    url: `/api/admin/messaging-accounts/${id}/config`,
    as: admin.cookie,
    payload: typeof config === 'string' ? config : JSON.stringify(config),
    headers: { 'content-type': 'text/plain' },
  });
const view = async (id: number) => (await t.request({ method: 'GET', url: `/api/admin/messaging-accounts/${id}`, as: admin.cookie })).json();
const storedConfig = async (id: number) => (await t.ctx.db.select().from(messagingAccounts).where(eq(messagingAccounts.id, id)))[0].config;

describe('the private-address rule', () => {
  it('tells public unicast addresses from private, loopback, link-local and mapped ones', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('resolves a name before checking it', async () => {
    expect(await outboundUrlProblem('http://localhost:9/x', { allowPrivate: false })).toMatch(/private, loopback or link-local/);
    expect(await outboundUrlProblem('http://localhost:9/x', { allowPrivate: true })).toBeNull();
    expect(await outboundUrlProblem('https://93.184.216.34/x', { allowPrivate: false })).toBeNull();
    expect(await outboundUrlProblem('file:///etc/passwd', { allowPrivate: true })).toMatch(/http or https/);
  });
});

describe('SMS gateway account config', () => {
  it("refuses a baseUrl on a private, loopback or link-local address with a readable 400; accepts a public one", async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', token: 'user:pass' });
    for (const baseUrl of ['http://127.0.0.1:8080/3rdparty/v1', 'http://10.0.0.5', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:80', 'http://[::ffff:127.0.0.1]/', 'http://localhost:9', 'ftp://93.184.216.34/']) {
      const res = await saveConfig(account.id, { baseUrl });
      expect(res.statusCode, baseUrl).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_CONFIG', error: expect.stringContaining('baseUrl') });
    }
    expect(await storedConfig(account.id)).toBe('{}');
    expect((await saveConfig(account.id, { baseUrl: 'https://93.184.216.34/3rdparty/v1' })).statusCode).toBe(200);
  });

  it('does not call a private baseUrl stored before the rule (or pointed there since): the send fails for good, naming why', async () => {
    const stored = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', token: 'user:pass', config: { baseUrl: 'http://127.0.0.1:9/3rdparty/v1' } });
    const account = (await findAccountById(t.ctx, stored.id))!;
    const failure = await smsGatewaySender.send(endpointsOf(t.ctx), account, { recipientId: '+15550001234', text: 'hi' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ChannelSendError);
    expect((failure as ChannelSendError).transient).toBe(false);
    expect((failure as ChannelSendError).record).toMatchObject({ code: 'PRIVATE_URL', message: expect.stringContaining('private') });
  });

  it('shows the signing key masked, keeps it sealed at rest, and keeps it when the masked config is saved back', async () => {
    const key = 'gw-signing-key-9f3a7c51';
    const account = await buildChannelAccount(t.ctx, { type: 'SMS_GATEWAY', token: 'user:pass' });
    expect((await saveConfig(account.id, `{\n  "baseUrl": "https://93.184.216.34/3rdparty/v1",\n  "signingKey": "${key}"\n}`)).statusCode).toBe(200);
    expect(await storedConfig(account.id)).not.toContain(key);

    const shown = (await view(account.id)).config as string;
    expect(shown).not.toContain(key);
    expect(JSON.parse(shown)).toEqual({ baseUrl: 'https://93.184.216.34/3rdparty/v1', signingKey: '••••7c51' });
    const list = (await t.request({ method: 'GET', url: '/api/admin/messaging-accounts/list', as: admin.cookie })).body;
    expect(list).not.toContain(key);

    // The gateway's webhooks are still verified with the real key.
    const event = smsGatewayEvent(account.pageId, '+34600111222', 'evt-mask-1', 'Hola');
    expect((await postSmsGateway(t, key, event)).statusCode).toBe(200);

    // The editor round-trips the mask: the key stays; a mask of another key is refused.
    expect((await saveConfig(account.id, shown)).statusCode).toBe(200);
    expect((await postSmsGateway(t, key, { ...event, id: 'evt-mask-2' })).statusCode).toBe(200);
    const wrongMask = await saveConfig(account.id, { ...JSON.parse(shown), signingKey: '••••0000' });
    expect(wrongMask.statusCode).toBe(400);
    expect(wrongMask.json().error).toContain('signingKey');

    // A new key replaces it.
    expect((await saveConfig(account.id, { baseUrl: 'https://93.184.216.34/3rdparty/v1', signingKey: 'next-signing-key-1234' })).statusCode).toBe(200);
    expect((await postSmsGateway(t, key, { ...event, id: 'evt-mask-3' })).statusCode).toBe(403);
    expect((await postSmsGateway(t, 'next-signing-key-1234', { ...event, id: 'evt-mask-4' })).statusCode).toBe(200);
  });
});
