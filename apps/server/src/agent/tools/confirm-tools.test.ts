import { eq } from 'drizzle-orm';
import { beforeEach, expect, it } from 'vitest';
import { agentToolCalls, conversations } from '../../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook } from '../../test/agent-factories.ts';
import { startCalcomFake } from '../../test/fakes/calcom-fake.ts';
import { startHttpToolFake } from '../../test/fakes/http-tool-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from '../agent.service.ts';
import { describeSlot } from './booking-tools.ts';
import { isConfirmation } from './pending-tool-call.ts';
import { utcSlot } from '../../test/calendar-slots.ts';

const llm = useFake(new OpenAiFake());
const cal = useFake(() => startCalcomFake());
const api = useFake(() => startHttpToolFake());
const t = useTestApp({ env: () => ({ CALCOM_API_URL: cal.baseUrl, ...llm.env({ LLM_MAX_RETRIES: '0' }) }) });
const admin = useUser(t, 'ADMIN');
const SLOT = utcSlot(1, 15);

beforeEach(() => {
  api.requests.length = 0;
  cal.bookings.length = 0;
  cal.slots = [SLOT, utcSlot(2, 9)];
  llm.reset();
});

async function conversationWith(config: Record<string, unknown>) {
  const type = await buildPlaybook(t.ctx, { phases: 3 });
  const saved = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: JSON.stringify({ replyDebounceSeconds: 0, ...config }), headers: { 'content-type': 'text/plain' } });
  expect(saved.statusCode, saved.body).toBe(200);
  return startWebConversation(t.ctx, type.id);
}

const pendingOf = async (id: number) => (await t.ctx.db.select({ p: conversations.pendingToolCall }).from(conversations).where(eq(conversations.id, id)))[0]!.p;

it('book_meeting with "confirm": true is held and described; the prospect’s yes books exactly that slot', async () => {
  llm.once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'UTC', email: 'ada@example.com' } }] });
  const { id } = await conversationWith({ booking: { provider: 'calcom', apiKey: cal.apiKey, eventTypeId: 77, confirm: true } });
  await receiveProspectMessage(t.ctx, id, 'Book me tomorrow at 3pm');
  await t.ctx.jobs.drain();
  expect(cal.bookings).toEqual([]);
  expect(await pendingOf(id)).toMatchObject({ name: 'book_meeting', action: `book the meeting on ${describeSlot(SLOT, 'UTC')}` });
  // The model was told it is not done, and the draft is asked to describe it and ask for the yes.
  const toolSteps = llm.requests.filter((r) => r.schemaName === 'tools');
  expect(JSON.stringify(toolSteps[1]!.messages.at(-1))).toContain('awaitingConfirmation');
  const draft = llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!;
  expect(JSON.stringify(draft.messages)).toContain('ask them to confirm with a yes');

  llm.reset();
  await receiveProspectMessage(t.ctx, id, 'Yes please');
  await t.ctx.jobs.drain();
  expect(cal.bookings).toEqual([expect.objectContaining({ start: SLOT, eventTypeId: 77, attendee: expect.objectContaining({ email: 'ada@example.com' }) })]);
  expect(await pendingOf(id)).toBeNull();
  const draftAfter = llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!;
  expect(JSON.stringify(draftAfter.messages)).toContain('book_meeting answered');
  const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id)).orderBy(agentToolCalls.id);
  expect(calls.map((c) => [c.name, c.ok, c.result.slice(0, 34)])).toEqual([
    ['book_meeting', true, "awaiting the prospect's confirmati"],
    ['book_meeting', true, expect.stringContaining('"booked":true')],
  ]);
});

it('a custom tool with "confirm": true is dropped when the prospect answers anything but yes', async () => {
  const tool = {
    name: 'cancel_order',
    description: 'Cancels an order.',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    method: 'POST',
    url: `${api.baseUrl}/orders/{orderId}/cancel`,
    secret: api.secret,
    confirm: true,
  };
  llm.once('tools', { toolCalls: [{ name: 'cancel_order', arguments: { orderId: '1042' } }] });
  const { id } = await conversationWith({ tools: [tool] });
  await receiveProspectMessage(t.ctx, id, 'Cancel order 1042');
  await t.ctx.jobs.drain();
  expect(api.requests).toEqual([]);
  expect(await pendingOf(id)).toMatchObject({ name: 'cancel_order', arguments: { orderId: '1042' } });

  llm.reset();
  await receiveProspectMessage(t.ctx, id, 'Hmm, actually no, keep it');
  await t.ctx.jobs.drain();
  expect(api.requests).toEqual([]);
  expect(await pendingOf(id)).toBeNull();
  const draft = llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!;
  expect(JSON.stringify(draft.messages)).toContain('did not confirm');
  expect((await agentMessagesOf(t.ctx, id)).length).toBeGreaterThan(1);

  // A later yes does not run the dropped call.
  await receiveProspectMessage(t.ctx, id, 'yes');
  await t.ctx.jobs.drain();
  expect(api.requests).toEqual([]);
});

it('only a plain yes confirms', () => {
  for (const yes of ['yes', 'Yes please.', 'ok', 'Sure, go ahead!', 'yep']) expect(isConfirmation(yes), yes).toBe(true);
  for (const no of ['no', 'Yes but not at 3', 'wait', 'What time was that?', '', 'ok, but change it to Friday']) expect(isConfirmation(no), no).toBe(false);
});
