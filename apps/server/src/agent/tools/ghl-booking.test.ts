import { eq } from 'drizzle-orm';
import { beforeEach, expect, it } from 'vitest';
import { agentToolCalls, bookings, conversations } from '../../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook } from '../../test/agent-factories.ts';
import { startGhlFake } from '../../test/fakes/ghl-fake.ts';
import { OpenAiFake } from '../../test/fakes/openai-fake.ts';
import { useFake, useTestApp } from '../../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from '../agent.service.ts';
import { utcSlot } from '../../test/calendar-slots.ts';

const llm = useFake(new OpenAiFake());
const ghl = useFake(() => startGhlFake());
const t = useTestApp({ env: () => ({ ...llm.env({ LLM_MAX_RETRIES: '0' }), ...ghl.env() }) });

const day = utcSlot;
const SLOT = day(1, 15);
const NEXT = day(2, 9);

beforeEach(() => {
  llm.reset();
  ghl.calendarSlots.set('cal-1', [SLOT, NEXT]);
  ghl.appointments.length = 0;
});

async function ghlConversation(contactId: string | null = 'contact-42') {
  const type = await buildPlaybook(t.ctx, { phases: 3, config: { crm: 'GHL', booking: { provider: 'ghl', calendarId: 'cal-1' } } });
  const started = await startWebConversation(t.ctx, type.id);
  if (contactId) await t.ctx.db.update(conversations).set({ crmContactId: contactId }).where(eq(conversations.id, started.id));
  return started;
}

it('books, moves and cancels an appointment on the conversation’s CRM contact in a GoHighLevel calendar', async () => {
  llm
    .once('tools', { toolCalls: [{ name: 'check_availability', arguments: { timeZone: 'America/New_York' } }] })
    .once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'America/New_York', name: 'Ada' } }] })
    .once('tools', { toolCalls: [] })
    .once('tools', { toolCalls: [{ name: 'reschedule_meeting', arguments: { start: NEXT } }] })
    .once('tools', { toolCalls: [] })
    .once('tools', { toolCalls: [{ name: 'cancel_meeting', arguments: {} }] });
  const { id } = await ghlConversation();
  await receiveProspectMessage(t.ctx, id, 'Can we meet tomorrow?');
  await t.ctx.jobs.drain();

  const slotsRequest = ghl.requests.find((r) => r.path === '/calendars/cal-1/free-slots')!;
  expect(slotsRequest.headers.version).toBe('2021-04-15');
  expect(slotsRequest.query.timezone).toBe('America/New_York');
  expect(Number(slotsRequest.query.startDate)).toBeGreaterThan(0);
  expect(ghl.appointments).toEqual([expect.objectContaining({ calendarId: 'cal-1', locationId: ghl.locationId, contactId: 'contact-42', startTime: SLOT, appointmentStatus: 'confirmed' })]);
  const toolSteps = llm.requests.filter((r) => r.schemaName === 'tools');
  expect(JSON.stringify(toolSteps[1]!.messages.at(-1))).toContain('America/New_York');

  await receiveProspectMessage(t.ctx, id, 'Move it to the day after please');
  await t.ctx.jobs.drain();
  expect(ghl.appointments[0]).toMatchObject({ id: 'appt_1', startTime: NEXT });
  await receiveProspectMessage(t.ctx, id, 'Cancel it');
  await t.ctx.jobs.drain();
  expect(ghl.appointments[0]!.appointmentStatus).toBe('cancelled');
  const stored = await t.ctx.db.select().from(bookings).where(eq(bookings.conversationId, id)).orderBy(bookings.id);
  expect(stored.map((b) => [b.provider, b.externalId, b.status])).toEqual([
    ['ghl', 'appt_1', 'rescheduled'],
    ['ghl', 'appt_1', 'cancelled'],
  ]);
});

it('without a CRM contact the booking fails in words and the prospect is still answered', async () => {
  llm.once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT } }] });
  const { id } = await ghlConversation(null);
  await receiveProspectMessage(t.ctx, id, 'Book me');
  await t.ctx.jobs.drain();
  const [call] = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(call).toMatchObject({ name: 'book_meeting', ok: false });
  expect(call!.result).toContain('books on a CRM contact');
  expect(ghl.appointments).toEqual([]);
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
});

it('a booking moves the contact’s opportunity to the stage configured for booked (stageOnOutcome.booked)', async () => {
  llm.once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'UTC' } }] });
  const type = await buildPlaybook(t.ctx, {
    phases: 3,
    config: { crm: 'GHL', booking: { provider: 'ghl', calendarId: 'cal-1' }, stageOnOutcome: { booked: 'st-appointment', ended: 'st-human' } },
  });
  const { id } = await startWebConversation(t.ctx, type.id);
  await t.ctx.db.update(conversations).set({ crmContactId: 'ct-09' }).where(eq(conversations.id, id));
  await receiveProspectMessage(t.ctx, id, 'Book me tomorrow');
  await t.ctx.jobs.drain();
  expect(ghl.appointments).toHaveLength(1);
  expect(ghl.opportunities.find((o) => o.id === 'opp-09')!.pipelineStageId).toBe('st-appointment');
  expect(ghl.requests.find((r) => r.method === 'PUT' && r.path === '/opportunities/opp-09')?.body).toMatchObject({ pipelineStageId: 'st-appointment' });
});

it('a reschedule by the prospect moves the opportunity to the booked stage again', async () => {
  llm
    .once('tools', { toolCalls: [{ name: 'book_meeting', arguments: { start: SLOT, timeZone: 'UTC' } }] })
    .once('tools', { toolCalls: [] })
    .once('tools', { toolCalls: [{ name: 'reschedule_meeting', arguments: { start: NEXT } }] });
  const type = await buildPlaybook(t.ctx, { phases: 3, config: { crm: 'GHL', booking: { provider: 'ghl', calendarId: 'cal-1' }, stageOnOutcome: { booked: 'st-appointment' } } });
  const { id } = await startWebConversation(t.ctx, type.id);
  await t.ctx.db.update(conversations).set({ crmContactId: 'ct-09' }).where(eq(conversations.id, id));
  await receiveProspectMessage(t.ctx, id, 'Book me tomorrow');
  await t.ctx.jobs.drain();
  const opportunity = ghl.opportunities.find((o) => o.id === 'opp-09')!;
  expect(opportunity.pipelineStageId).toBe('st-appointment');
  // A person moved the opportunity on in GoHighLevel; the prospect then moves the meeting.
  opportunity.pipelineStageId = 'st-new';
  const movesBefore = ghl.requests.filter((r) => r.method === 'PUT' && r.path === '/opportunities/opp-09').length;
  await receiveProspectMessage(t.ctx, id, 'Can we move it to the day after?');
  await t.ctx.jobs.drain();
  expect(ghl.appointments.at(-1)).toMatchObject({ startTime: NEXT });
  expect(opportunity.pipelineStageId).toBe('st-appointment');
  expect(ghl.requests.filter((r) => r.method === 'PUT' && r.path === '/opportunities/opp-09')).toHaveLength(movesBefore + 1);
});

it('lead fields reach the GoHighLevel contact: standard fields by name, the others as customFields [{id, field_value}]', async () => {
  const leadFields = [
    { key: 'email', label: 'Email', type: 'email', ghlField: 'email' },
    { key: 'company', label: 'Company', type: 'text', ghlField: 'companyName' },
    { key: 'budget', label: 'Budget', type: 'number', ghlField: 'cf_budget_id' },
    { key: 'note', label: 'Note', type: 'text' },
  ];
  llm.once('tools', { toolCalls: [{ name: 'update_lead', arguments: { email: 'ada@acme.test', company: 'Acme', budget: 5000, note: 'not mapped' } }] });
  const type = await buildPlaybook(t.ctx, { phases: 3, config: { crm: 'GHL', leadFields } });
  const { id } = await startWebConversation(t.ctx, type.id);
  await t.ctx.db.update(conversations).set({ crmContactId: 'ct-11' }).where(eq(conversations.id, id));
  ghl.contactUpdates.length = 0;
  await receiveProspectMessage(t.ctx, id, 'I am Ada from Acme, ada@acme.test, budget 5000');
  await t.ctx.jobs.drain();
  expect(ghl.contactUpdates).toEqual([
    { contactId: 'ct-11', body: { email: 'ada@acme.test', companyName: 'Acme', customFields: [{ id: 'cf_budget_id', field_value: 5000 }] } },
  ]);
});
