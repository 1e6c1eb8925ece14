import { beforeEach, describe, expect, it } from 'vitest';
import { recordConsent } from '../../conversations/consent.ts';
import { quietHoursClock } from '../../conversations/quiet-hours.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { buildChannelAccount, CHANNEL_ENV, deliverWaiting } from '../../test/channel-factories.ts';
import { startMetaGraphFake } from '../../test/fakes/meta-graph-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { runCampaignTick } from './campaign-tick.ts';

/**
 * WhatsApp campaigns (issue 23 items 3–4, docs/campaigns.md): each opening message goes as the campaign's
 * approved template, and only to a number with a recorded opt-in; the others end `failed` with the code
 * NO_WHATSAPP_OPT_IN on their row. Against the loopback Meta Graph fake.
 */
const WA_TOKEN = 'EAAwa-system-user-token-campaign-0123456789';
const graph = useFake(() => startMetaGraphFake({ tokens: [WA_TOKEN] }));
const t = useTestApp({ env: () => ({ ...CHANNEL_ENV, META_GRAPH_URL: graph.url }) });
const admin = useUser(t, 'ADMIN');
beforeEach(() => graph.reset());
const realNow = quietHoursClock.now;

let seq = 0;
async function whatsappType(accountConfig: Record<string, unknown> = {}) {
  const type = await buildPlaybook(t.ctx, { initialMessage: 'Hi! Spring offer on widgets.', config: { aiDisclosure: false } });
  await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: `PNID-camp-${(seq += 1)}`, token: WA_TOKEN, conversationTypeId: type.id, config: accountConfig });
  return type.id;
}
const create = (payload: object) => t.request({ method: 'POST', url: '/api/admin/campaigns', as: admin.cookie, payload: { name: 'WA spring', channel: 'whatsapp', ...payload } });

describe('WhatsApp campaigns', () => {
  it('send the campaign’s template to opted-in numbers only; the rest are marked NO_WHATSAPP_OPT_IN', async () => {
    const typeId = await whatsappType();
    const [optedIn, unknown] = ['+34600333001', '+34600333002'];
    await recordConsent(t.ctx.db, { address: optedIn, channel: 'whatsapp', granted: true, source: 'api', note: 'shop sign-up form' });
    const template = { name: 'spring_offer', language: 'es_ES' };
    const res = await create({ conversationTypeId: typeId, contacts: [{ phone: optedIn }, { phone: unknown }], whatsappTemplate: template });
    expect(res.statusCode).toBe(201);
    const id = res.json().id;
    expect((await t.request({ method: 'POST', url: `/api/admin/campaigns/${id}/start`, as: admin.cookie })).statusCode).toBe(200);
    // The scheduler tick by tick on a moved clock (pacing puts 6 s between the two), then the deliveries.
    let clock = new Date();
    quietHoursClock.now = () => clock;
    try {
      for (let delay = await runCampaignTick(t.ctx, id); delay !== null; delay = await runCampaignTick(t.ctx, id)) clock = new Date(clock.getTime() + delay);
    } finally {
      quietHoursClock.now = realNow;
    }
    await deliverWaiting(t.ctx);

    expect(graph.sends()).toHaveLength(1);
    expect(graph.sends()[0].body).toMatchObject({ to: optedIn.slice(1), type: 'template', template: { name: 'spring_offer', language: { code: 'es_ES' } } });
    const view = (await t.request({ method: 'GET', url: `/api/admin/campaigns/${id}`, as: admin.cookie })).json();
    expect(view.whatsappTemplate).toEqual(template);
    expect(view.contacts).toEqual([
      expect.objectContaining({ phone: optedIn, status: 'sent', code: null }),
      expect.objectContaining({ phone: unknown, status: 'failed', code: 'NO_WHATSAPP_OPT_IN', detail: expect.stringContaining('opted in') }),
    ]);
  });

  it('needs a template: the campaign’s, or the account’s outsideWindow one (400 CAMPAIGN_CHANNEL_UNAVAILABLE otherwise)', async () => {
    const bare = await whatsappType();
    const refused = await create({ conversationTypeId: bare, contacts: [{ phone: '+34600333003' }] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'CAMPAIGN_CHANNEL_UNAVAILABLE', error: expect.stringContaining('whatsappTemplate') });
    const withAccountTemplate = await whatsappType({ templates: { outsideWindow: { name: 'follow_up_1', language: 'en_US' } } });
    expect((await create({ conversationTypeId: withAccountTemplate, contacts: [{ phone: '+34600333003' }] })).statusCode).toBe(201);
  });
});
