import { eq } from 'drizzle-orm';
import { beforeEach, expect, it } from 'vitest';
import { agentToolCalls, bookings, conversationTypes } from '../../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook } from '../../test/agent-factories.ts';
import { startCalcomFake } from '../../test/fakes/calcom-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from '../agent.service.ts';
import { describeSlot } from './booking-tools.ts';
import { MAX_TOOL_CALLS_PER_TURN, toolLimits } from './tool-step.ts';
import { utcSlot } from '../../test/calendar-slots.ts';

const llm = useFake(new OpenAiFake());
const cal = useFake(() => startCalcomFake());
const t = useTestApp({ env: () => ({ ...llm.env({ LLM_MAX_RETRIES: '0' }), CALCOM_API_URL: cal.baseUrl }) });
const admin = useUser(t, 'ADMIN');

// Slots within check_availability's two-week window: tomorrow 15:00 and the day after 09:00 UTC.
const day = utcSlot;
const SLOT = day(1, 15);
beforeEach(() => {
  llm.reset();
  cal.slots = [SLOT, day(2, 9)];
  cal.bookings.length = 0;
  cal.requests.length = 0;
  cal.hangSlots = false;
});

async function calcomConversation(apiKey = cal.apiKey) {
  const type = await buildPlaybook(t.ctx, { phases: 3, config: { booking: { provider: 'calcom', apiKey, eventTypeId: 77 } } });
  return startWebConversation(t.ctx, type.id);
}

it('runs the tool calls the model asks for against Cal.com v2, feeds results back, stores the booking', async () => {
  llm
    .once('tools', { toolCalls: [{ name: 'check_availability', arguments: { timeZone: 'Europe/Berlin' } }] })
    .once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'Europe/Berlin', name: 'Ada', email: 'ada@example.com' } }] })
    .on('draft_reply', { json: { reply: 'Booked: Tuesday 4 March 2031, 16:00 Berlin time.', needsHuman: false, reason: '' } });
  const { id } = await calcomConversation();
  await receiveProspectMessage(t.ctx, id, 'Can we meet next week?');
  await t.ctx.jobs.drain();

  expect(cal.bookings).toEqual([expect.objectContaining({ start: SLOT, eventTypeId: 77, attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'Europe/Berlin' } })]);
  expect(cal.requests.map((r) => `${r.method} ${r.path} ${r.version}`)).toContain('POST /v2/bookings 2026-02-25');
  expect(cal.requests.map((r) => `${r.method} ${r.path} ${r.version}`)).toContain('GET /v2/slots 2024-09-04');
  const [stored] = await t.ctx.db.select().from(bookings).where(eq(bookings.conversationId, id));
  expect(stored).toMatchObject({ provider: 'calcom', externalId: 'bk_1', timeZone: 'Europe/Berlin', status: 'booked' });
  expect(stored!.start.toISOString()).toBe(SLOT);
  // The slots went back to the model as a tool message, and the booking's confirmation reached the draft.
  const toolSteps = llm.requests.filter((r) => r.schemaName === 'tools');
  expect(toolSteps).toHaveLength(3);
  expect(toolSteps[0]!.tools).toEqual(['check_availability', 'book_meeting', 'reschedule_meeting', 'cancel_meeting']);
  expect(JSON.stringify(toolSteps[1]!.messages.at(-1))).toContain(describeSlot(SLOT, 'Europe/Berlin'));
  const draft = llm.requests.find((r) => r.schemaName === 'draft_reply')!;
  expect(JSON.stringify(draft.messages)).toContain('book_meeting answered');
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Booked: Tuesday 4 March 2031, 16:00 Berlin time.');
});

it('a failing calendar still gets the prospect an answer, told what failed; the call is stored as failed', async () => {
  llm.once('tools', { toolCalls: [{ name: 'check_availability', arguments: {} }] });
  const { id } = await calcomConversation('cal_live_wrong_key');
  await receiveProspectMessage(t.ctx, id, 'When are you free?');
  await t.ctx.jobs.drain();

  const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(calls).toEqual([expect.objectContaining({ name: 'check_availability', ok: false, result: 'Cal.com answered 401: Invalid API Key' })]);
  const draft = llm.requests.find((r) => r.schemaName === 'draft_reply')!;
  expect(JSON.stringify(draft.messages)).toContain('check_availability failed: Cal.com answered 401');
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
});

it('refuses a slot Cal.com does not offer, and caps the tool calls of one turn', async () => {
  llm.on('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: day(1, 3), email: 'a@b.co' } }] });
  const { id } = await calcomConversation();
  await receiveProspectMessage(t.ctx, id, 'Book me at 3 am');
  await t.ctx.jobs.drain();

  const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(calls).toHaveLength(MAX_TOOL_CALLS_PER_TURN);
  expect(calls.every((c) => !c.ok && c.result.includes('no longer free'))).toBe(true);
  expect(cal.bookings).toEqual([]);
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
});

it('seals the Cal.com apiKey saved through the config API, answers it masked, and books with the opened key', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 3 });
  const config = `{\n  "replyDebounceSeconds": 0,\n  "booking": { "provider": "calcom", "apiKey": "${cal.apiKey}", "eventTypeId": 77 }\n}`;
  const saved = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: config, headers: { 'content-type': 'text/plain' } });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.body).not.toContain(cal.apiKey);
  const answered = (await t.request({ method: 'GET', url: `/api/conversation-type/${type.id}`, as: admin.cookie })).json().config as string;
  expect(answered).toContain(`"apiKey": "••••${cal.apiKey.slice(-4)}"`);
  const [stored] = await t.ctx.db.select({ config: conversationTypes.config }).from(conversationTypes).where(eq(conversationTypes.id, type.id));
  expect(stored!.config).toMatch(/"apiKey": "sealed:v1\./);

  // Saving the masked value back keeps the key; a mask of another key is refused in words.
  const back = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: answered, headers: { 'content-type': 'text/plain' } });
  expect(back.statusCode, back.body).toBe(200);
  const wrong = await t.request({ method: 'POST', url: `/api/admin/conversation-type/${type.id}/config`, as: admin.cookie, payload: answered.replace(/••••\w+/, '••••zzzz'), headers: { 'content-type': 'text/plain' } });
  expect(wrong.statusCode).toBe(400);
  expect(wrong.json().error).toContain('booking.apiKey');

  llm.once('tools', { toolCalls: [{ name: 'check_availability', arguments: {} }] });
  const { id } = await startWebConversation(t.ctx, type.id);
  await receiveProspectMessage(t.ctx, id, 'Any times?');
  await t.ctx.jobs.drain();
  const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(call).toMatchObject({ name: 'check_availability', ok: true });
});

it('a tool that does not answer in time fails the call, and the prospect is still answered', async () => {
  const saved = toolLimits.timeoutMs;
  toolLimits.timeoutMs = 200;
  try {
    cal.hangSlots = true;
    llm.once('tools', { toolCalls: [{ name: 'check_availability', arguments: {} }] });
    const { id } = await calcomConversation();
    await receiveProspectMessage(t.ctx, id, 'When are you free?');
    await t.ctx.jobs.drain();
    const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
    expect(calls).toEqual([expect.objectContaining({ name: 'check_availability', ok: false, result: 'check_availability did not answer within 0.2 s' })]);
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
  } finally {
    toolLimits.timeoutMs = saved;
  }
});

it('moves the booked meeting to another offered slot, then cancels it, at Cal.com and on the conversation', async () => {
  const NEXT = day(2, 9);
  llm
    .once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'Europe/Berlin', email: 'ada@example.com' } }] })
    .once('tools', { toolCalls: [] })
    .once('tools', { toolCalls: [{ name: 'reschedule_meeting', arguments: { start: NEXT, reason: 'Clash' } }] })
    .once('tools', { toolCalls: [] })
    .once('tools', { toolCalls: [{ name: 'cancel_meeting', arguments: { reason: 'No longer needed' } }] });
  const { id, uuid } = await calcomConversation();
  await receiveProspectMessage(t.ctx, id, 'Book the first one');
  await t.ctx.jobs.drain();
  await receiveProspectMessage(t.ctx, id, 'Can we move it to the day after?');
  await t.ctx.jobs.drain();
  expect(cal.bookings.map((b) => [b.uid, b.status, b.start, b.rescheduledFromUid])).toEqual([
    ['bk_1', 'cancelled', SLOT, undefined],
    ['bk_2', 'accepted', NEXT, 'bk_1'],
  ]);
  expect(cal.requests.map((r) => `${r.method} ${r.path} ${r.version}`)).toContain('POST /v2/bookings/bk_1/reschedule 2026-02-25');
  let stored = await t.ctx.db.select().from(bookings).where(eq(bookings.conversationId, id)).orderBy(bookings.id);
  expect(stored.map((b) => [b.externalId, b.status, b.timeZone])).toEqual([['bk_1', 'rescheduled', 'Europe/Berlin'], ['bk_2', 'booked', 'Europe/Berlin']]);
  const draft = llm.requests.filter((r) => r.schemaName === 'draft_reply').at(-1)!;
  expect(JSON.stringify(draft.messages)).toContain('reschedule_meeting answered');

  await receiveProspectMessage(t.ctx, id, 'Sorry, please cancel it');
  await t.ctx.jobs.drain();
  expect(cal.bookings[1]).toMatchObject({ status: 'cancelled', cancellationReason: 'No longer needed' });
  stored = await t.ctx.db.select().from(bookings).where(eq(bookings.conversationId, id)).orderBy(bookings.id);
  expect(stored.map((b) => b.status)).toEqual(['rescheduled', 'cancelled']);
  const detail = await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie });
  expect(detail.json().bookings.map((b: { status: string }) => b.status)).toEqual(['rescheduled', 'cancelled']);
});

it('a cancel with no booked meeting fails in words and calls no calendar', async () => {
  llm.once('tools', { toolCalls: [{ name: 'cancel_meeting', arguments: {} }] });
  const { id } = await calcomConversation();
  await receiveProspectMessage(t.ctx, id, 'Cancel my meeting');
  await t.ctx.jobs.drain();
  const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(call).toMatchObject({ name: 'cancel_meeting', ok: false, result: 'The prospect has no booked meeting to change; offer to book one.' });
  expect(cal.requests.filter((r) => r.path.includes('cancel'))).toEqual([]);
});
