import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentToolCalls, bookings, conversations } from '../../db/schema/index.ts';
import { buildConversationType } from '../../test/conversation-factories.ts';
import { startCalcomFake } from '../../test/fakes/calcom-fake.ts';
import { startHttpToolFake } from '../../test/fakes/http-tool-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import type { FakeRealtimeSession } from '../../test/fakes/openai-realtime-fake.ts';
import { startOpenAiRealtimeFake } from '../../test/fakes/openai-realtime-fake.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { REALTIME_ACCOUNT_SID, REALTIME_AUTH_TOKEN, useRealtimeCalls } from '../../test/realtime-call.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { describeSlot } from '../../agent/tools/booking-tools.ts';
import { utcSlot } from '../../test/calendar-slots.ts';

const llm = useFake(new OpenAiFake());
const realtime = useFake(() => startOpenAiRealtimeFake({ apiKey: llm.env().OPENAI_API_KEY }));
const twilioApi = useFake(() => startTwilioFake({ accounts: { [REALTIME_ACCOUNT_SID]: REALTIME_AUTH_TOKEN } }));
const cal = useFake(() => startCalcomFake());
const api = useFake(() => startHttpToolFake());
const t = useTestApp({ env: () => ({ ...llm.env(), ...realtime.env(), TWILIO_API_URL: twilioApi.url, CALCOM_API_URL: cal.baseUrl }) });
const admin = useUser(t, 'ADMIN');
const liveCall = useRealtimeCalls(t, realtime, twilioApi);

const day = utcSlot;
const SLOT = day(1, 15);

beforeEach(() => {
  cal.slots = [SLOT, day(2, 9)];
  cal.bookings.length = 0;
  api.requests.length = 0;
  api.mode = 'ok';
});

const orderTool = (over: Record<string, unknown> = {}) => ({
  name: 'order_status',
  description: "Looks up an order's shipping status by its number.",
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  method: 'POST',
  url: `${api.baseUrl}/orders/{orderId}`,
  secret: api.secret,
  ...over,
});

/** A type whose config (saved through the admin route, so secrets are sealed) has these booking and tools. */
async function typeWith(config: Record<string, unknown>) {
  const type = await buildConversationType(t.ctx, { phases: 1 });
  const saved = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: JSON.stringify(config), headers: { 'content-type': 'text/plain' } });
  expect(saved.statusCode, saved.body).toBe(200);
  return type.id;
}

/** The model calls `name` in a new response; resolves with the parsed function_call_output the bridge answers. */
async function modelCalls(session: FakeRealtimeSession, name: string, args: Record<string, unknown>) {
  const outputsBefore = session.of('conversation.item.create').length;
  const responsesBefore = session.of('response.create').length;
  const responseId = session.nextId('resp');
  session.responseCreated(responseId);
  const callId = session.functionCall(responseId, name, args);
  session.responseDone(responseId);
  const created = await session.waitFor('conversation.item.create', outputsBefore + 1);
  expect(created.item).toMatchObject({ type: 'function_call_output', call_id: callId });
  // The model is asked to go on with the result.
  await session.waitFor('response.create', responsesBefore + 1);
  return JSON.parse((created.item as { output: string }).output) as Record<string, any>;
}

/** The caller speaks a line that is transcribed. */
function callerSays(session: FakeRealtimeSession, text: string) {
  const itemId = session.nextId('item');
  session.speechStarted(itemId);
  session.inputTranscript(itemId, text);
}

describe('realtime voice agent: the type’s tools through the chat turns’ toolbox', () => {
  it('declares check_availability, book_meeting and custom tools; runs them and answers each function_call', async () => {
    const typeId = await typeWith({ booking: { provider: 'calcom', apiKey: cal.apiKey, eventTypeId: 77 }, tools: [orderTool()] });
    const { session, update, conversation } = await liveCall(typeId);
    const names = update.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['check_availability', 'book_meeting', 'order_status', 'end_call']));
    expect(update.tools.find((tool) => tool.name === 'order_status')).toMatchObject({ type: 'function', parameters: { required: ['orderId'] } });
    expect(JSON.stringify(update.tools)).not.toContain(api.baseUrl);
    expect(update.instructions).toMatch(/call check_availability/);
    await session.waitFor('response.create');

    const slots = await modelCalls(session, 'check_availability', { timeZone: 'Europe/Berlin' });
    expect(slots.ok).toBe(true);
    expect(slots.result.slots[0]).toMatchObject({ start: SLOT, label: describeSlot(SLOT, 'Europe/Berlin') });

    const booked = await modelCalls(session, 'book_meeting', { start: SLOT, timeZone: 'Europe/Berlin', name: 'Ada', email: 'ada@example.com' });
    expect(booked).toMatchObject({ ok: true, result: { booked: true, confirmation: describeSlot(SLOT, 'Europe/Berlin') } });
    expect(cal.bookings).toEqual([expect.objectContaining({ start: SLOT, eventTypeId: 77 })]);
    const [stored] = await t.ctx.db.select().from(bookings).where(eq(bookings.conversationId, conversation.id));
    expect(stored).toMatchObject({ provider: 'calcom', status: 'booked', timeZone: 'Europe/Berlin' });

    const order = await modelCalls(session, 'order_status', { orderId: '1042' });
    expect(order.ok).toBe(true);
    expect(api.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/orders/1042', signatureValid: true })]);

    const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, conversation.id)).orderBy(agentToolCalls.id);
    expect(calls.map((c) => [c.name, c.ok])).toEqual([
      ['check_availability', true],
      ['book_meeting', true],
      ['order_status', true],
    ]);
  });

  it('a failing tool is answered with its error and a next step; a tool the type does not declare is refused', async () => {
    const typeId = await typeWith({ tools: [orderTool()] });
    const { session, conversation } = await liveCall(typeId);
    await session.waitFor('response.create');
    api.mode = 'error';
    const failed = await modelCalls(session, 'order_status', { orderId: '7' });
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/answered HTTP 500[\s\S]*offer a next step or a colleague/);
    const refused = await modelCalls(session, 'book_meeting', { start: SLOT });
    expect(refused).toEqual({ ok: false, error: 'book_meeting is not available now.' });
    expect(cal.bookings).toEqual([]);
    const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, conversation.id));
    expect(calls.map((c) => [c.name, c.ok])).toEqual([['order_status', false]]);
  });

  it('"confirm": true holds book_meeting until the caller says yes; anything else drops it', async () => {
    const typeId = await typeWith({ booking: { provider: 'calcom', apiKey: cal.apiKey, eventTypeId: 77, confirm: true } });
    const { session, conversation } = await liveCall(typeId);
    await session.waitFor('response.create');

    const asked = await modelCalls(session, 'book_meeting', { start: SLOT, timeZone: 'UTC', email: 'ada@example.com' });
    expect(asked).toMatchObject({ ok: true, awaitingConfirmation: true, action: `book the meeting on ${describeSlot(SLOT, 'UTC')}` });
    expect(cal.bookings).toEqual([]);
    const [held] = await t.ctx.db.select({ pending: conversations.pendingToolCall }).from(conversations).where(eq(conversations.id, conversation.id));
    expect(held!.pending).toMatchObject({ name: 'book_meeting', arguments: { start: SLOT } });

    // "No, wait" drops it: the model's next call is held again, nothing is booked.
    callerSays(session, 'No, wait, not that day.');
    const again = await modelCalls(session, 'book_meeting', { start: SLOT, timeZone: 'UTC', email: 'ada@example.com' });
    expect(again.awaitingConfirmation).toBe(true);
    expect(cal.bookings).toEqual([]);

    // A yes: the model's call runs the held one.
    callerSays(session, 'Yes, please.');
    const done = await modelCalls(session, 'book_meeting', { start: SLOT, timeZone: 'UTC', email: 'ada@example.com' });
    expect(done).toMatchObject({ ok: true, result: { booked: true } });
    expect(cal.bookings).toHaveLength(1);
    const [after] = await t.ctx.db.select({ pending: conversations.pendingToolCall }).from(conversations).where(eq(conversations.id, conversation.id));
    expect(after!.pending).toBeNull();
  });
});
