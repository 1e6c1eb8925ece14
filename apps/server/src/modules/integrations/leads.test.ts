import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversations, messages, prospects } from '../../db/schema/index.ts';
import { recordOptOut } from '../../conversations/opt-out.ts';
import { quietHoursClock } from '../../conversations/quiet-hours.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { buildSmsGatewayAccount } from '../../test/channel-factories.ts';
import { startSmsGatewayFake } from '../../test/fakes/sms-gateway-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';

/** POST /api/leads (issue 27 item 3): a form's lead starts the type's opening SMS, within opt-outs and quiet hours. */
const gateway = useFake(() => startSmsGatewayFake({ login: 'gw', password: 'gw-password-0123456789' }));
const t = useTestApp();
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

let typeId: number;
let writeKey: string;
let readKey: string;
beforeAll(async () => {
  const type = await buildPlaybook(t.ctx, { initialMessage: 'Hi, thanks for your request! When suits you for a call?' });
  typeId = type.id;
  await buildSmsGatewayAccount(t.ctx, { baseUrl: gateway.baseUrl, login: 'gw', password: 'gw-password-0123456789', signingKey: 'k-leads' }, type.id);
  const key = (scopes: string[]) => t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name: 'forms', scopes } });
  writeKey = (await key(['conversations:write'])).json().key;
  readKey = (await key(['conversations:read'])).json().key;
});
const realNow = quietHoursClock.now;
afterEach(() => {
  quietHoursClock.now = realNow;
  t.ctx.config.QUIET_HOURS_ENFORCED = false;
});

const lead = (payload: object, key = writeKey) =>
  t.request({ method: 'POST', url: '/api/leads', headers: { authorization: `Bearer ${key}` }, payload: { conversationTypeId: typeId, ...payload } });

describe('POST /api/leads', () => {
  it('creates the prospect with its fields and sends the type’s opening SMS', async () => {
    const res = await lead({ phone: '+14155550101', name: 'Dana', fields: { company: 'Acme', seats: 12 } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ channel: 'message' });
    await t.ctx.jobs.drain();
    expect(gateway.messages.at(-1)).toMatchObject({ text: 'Hi, thanks for your request! When suits you for a call?', phoneNumbers: ['+14155550101'] });
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.uuid, res.json().uuid));
    const [prospect] = await t.ctx.db.select().from(prospects).where(eq(prospects.id, conversation.prospectId!));
    expect(prospect).toMatchObject({ externalId: '+14155550101', name: 'Dana' });
    const stored = await t.ctx.db.select().from(messages).where(eq(messages.conversationId, conversation.id)).orderBy(messages.id);
    expect(stored.map((m) => m.role)).toEqual(['SYSTEM', 'AGENT']);
    expect(stored[0].message).toContain('company: Acme');
    expect(stored[0].message).toContain('seats: 12');
  });

  it('pins the lead’s conversation to the type’s newest published version, as every other start does', async () => {
    const published = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${typeId}/versions/publish`, as: admin.cookie, payload: { note: 'v1' } });
    expect(published.statusCode).toBeLessThan(300);
    const res = await lead({ phone: '+14155550177', name: 'Pat' });
    expect(res.statusCode).toBe(201);
    const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.uuid, res.json().uuid));
    expect(conversation.typeVersion).toBe(1);
    await t.ctx.jobs.drain();
  });

  it('refuses an opted-out number (409 OPTED_OUT) and quiet hours (409 QUIET_HOURS), sending nothing', async () => {
    await recordOptOut(t.ctx.db, '+14155550102', 'sms', 'STOP');
    const before = gateway.messages.length;
    const out = await lead({ phone: '+14155550102' });
    expect(out.statusCode).toBe(409);
    expect(out.json().code).toBe('OPTED_OUT');

    t.ctx.config.QUIET_HOURS_ENFORCED = true;
    quietHoursClock.now = () => new Date('2030-01-16T07:30:00Z');
    const quiet = await lead({ phone: '+14155550103' });
    expect(quiet.statusCode).toBe(409);
    expect(quiet.json().code).toBe('QUIET_HOURS');
    await t.ctx.jobs.drain();
    expect(gateway.messages.length).toBe(before);
  });

  it('answers 400 for a bad phone or a type without a phone account, 404 for an unknown type', async () => {
    expect((await lead({ phone: 'call me' })).json().code).toBe('INVALID_PHONE');
    const bare = await buildPlaybook(t.ctx);
    const none = await lead({ conversationTypeId: bare.id, phone: '+14155550104' });
    expect(none.statusCode).toBe(400);
    expect(none.json().code).toBe('LEAD_CHANNEL_UNAVAILABLE');
    expect((await lead({ conversationTypeId: 999999, phone: '+14155550104' })).statusCode).toBe(404);
  });

  it('needs conversations:write (403), a caller (401) and an ADMIN (403)', async () => {
    const res = await lead({ phone: '+14155550105' }, readKey);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('API_KEY_SCOPE_MISSING');
    expect((await t.request({ method: 'POST', url: '/api/leads', payload: { conversationTypeId: typeId, phone: '+14155550105' } })).statusCode).toBe(401);
    expect((await t.request({ method: 'POST', url: '/api/leads', as: normal.cookie, payload: { conversationTypeId: typeId, phone: '+14155550105' } })).statusCode).toBe(403);
  });
});
