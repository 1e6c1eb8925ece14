import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { channelMessages } from '../db/schema/index.ts';
import { usePlaybook, useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { buildChannelAccount, CHANNEL_ENV, conversationOfProspect, postMeta, settle, whatsAppPayload } from '../test/channel-factories.ts';
import { grantAccount } from '../test/conversation-factories.ts';
import { readConversationDetail } from '../test/conversation-requests.ts';
import { startMetaGraphFake } from '../test/fakes/meta-graph-fake.ts';

/** Delivery states (issue 24): WhatsApp's statuses webhooks move a reply sent → delivered → read, or failed with the reason. */

const WA_TOKEN = 'EAAwa-system-user-token-0123456789';

describe('delivery states of replies', () => {
  const graph = useFake(() => startMetaGraphFake({ tokens: [WA_TOKEN] }));
  const t = useTestApp({ env: () => ({ ...CHANNEL_ENV, META_GRAPH_URL: graph.url }) });
  const admin = useUser(t, 'ADMIN');
  const member = useUser(t);
  const playbook = usePlaybook(t, { initialMessage: null, followUpPrompt: null });
  let seq = 0;

  const statuses = (pageId: string, items: unknown[]) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA-1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: pageId }, statuses: items } }] }],
  });
  const agentDelivery = async (uuid: string, as: string) => {
    const body = (await readConversationDetail(t, uuid, as)) as { messages: { role: string; delivery?: unknown }[] };
    return { agent: body.messages.filter((m) => m.role === 'AGENT').map((m) => m.delivery), prospect: body.messages.filter((m) => m.role === 'PROSPECT').map((m) => m.delivery) };
  };

  it('sent when WhatsApp accepted it, then delivered and read; never backwards; failed with the reason', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: `PNID-${++seq}`, token: WA_TOKEN, conversationTypeId: playbook.id });
    await grantAccount(t.ctx, member.id, account.id);
    await postMeta(t, whatsAppPayload(account.pageId, '34600555001', `wamid.in-${seq}`, 'Hola', 'Ana'));
    await settle(t.ctx);
    const found = (await conversationOfProspect(t.ctx, account.id, '34600555001'))!;
    const [sent] = await t.ctx.db
      .select({ externalId: channelMessages.externalId })
      .from(channelMessages)
      .where(and(eq(channelMessages.conversationId, found.conversation.id), eq(channelMessages.direction, 'OUT')));
    expect(sent).toBeDefined();
    const uuid = found.conversation.uuid;
    const first = await agentDelivery(uuid, member.cookie);
    expect(first.agent[0]).toEqual({ state: 'sent' });
    expect(first.prospect).toEqual([undefined]);

    await postMeta(t, statuses(account.pageId, [{ id: sent!.externalId, status: 'delivered' }]));
    await settle(t.ctx);
    expect((await agentDelivery(uuid, member.cookie)).agent[0]).toEqual({ state: 'delivered' });
    // Read, then a late "delivered": still read.
    await postMeta(t, statuses(account.pageId, [{ id: sent!.externalId, status: 'read' }]));
    await settle(t.ctx);
    await postMeta(t, statuses(account.pageId, [{ id: sent!.externalId, status: 'delivered' }]));
    await settle(t.ctx);
    expect((await agentDelivery(uuid, admin.cookie)).agent[0]).toEqual({ state: 'read' });

    await postMeta(t, statuses(account.pageId, [{ id: sent!.externalId, status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] }]));
    await settle(t.ctx);
    expect((await agentDelivery(uuid, admin.cookie)).agent[0]).toEqual({ state: 'failed', error: 'WhatsApp could not deliver the message: Message undeliverable' });
  });

  it('a status for a send we do not know changes nothing and is no error', async () => {
    const account = await buildChannelAccount(t.ctx, { type: 'WHATSAPP', pageId: `PNID-${++seq}`, token: WA_TOKEN, conversationTypeId: playbook.id });
    const res = await postMeta(t, statuses(account.pageId, [{ id: 'wamid.unknown', status: 'read' }]));
    expect(res.statusCode).toBe(200);
    await settle(t.ctx);
  });
});
