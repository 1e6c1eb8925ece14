import { isDemoAgentMessage } from '@sales-agent/shared/agent';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { agentToolCalls } from '../../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook } from '../../test/agent-factories.ts';
import { useTestApp, useUser } from '../../test/use-test-app.ts';
import { receiveProspectMessage, startWebConversation } from '../agent.service.ts';

// No OPENAI_API_KEY: the offline demo agent acts, with the demo calendar (no booking config on the type).
const t = useTestApp();
const admin = useUser(t, 'ADMIN');

it('books the first free slot when the prospect says "book", confirms it with date, time and zone, and answers it on the detail', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 4 });
  const { id, uuid } = await startWebConversation(t.ctx, type.id);
  await receiveProspectMessage(t.ctx, id, 'Sounds good, can I book a call?');
  await t.ctx.jobs.drain();

  const reply = (await agentMessagesOf(t.ctx, id)).at(-1)!;
  expect(isDemoAgentMessage(reply)).toBe(true);
  expect(reply).toMatch(/You're booked for \w+day, \d{1,2} \w+ \d{4} at (10|14):00 \(UTC\)/);

  const calls = await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id));
  expect(calls.map((c) => [c.name, c.ok])).toEqual([['check_availability', true], ['book_meeting', true]]);

  const asAdmin = await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie });
  expect(asAdmin.statusCode).toBe(200);
  const body = asAdmin.json();
  expect(body.bookings).toHaveLength(1);
  expect(body.bookings[0]).toMatchObject({ provider: 'demo', timeZone: 'UTC', status: 'booked' });
  expect(Date.parse(body.bookings[0].end) - Date.parse(body.bookings[0].start)).toBe(30 * 60_000);
  expect(body.toolCalls.map((c: { name: string }) => c.name)).toEqual(['check_availability', 'book_meeting']);
});

it('moves the meeting when the prospect says "reschedule", and cancels it on "cancel"', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 4 });
  const { id, uuid } = await startWebConversation(t.ctx, type.id);
  await receiveProspectMessage(t.ctx, id, 'Book me in please');
  await t.ctx.jobs.drain();
  await receiveProspectMessage(t.ctx, id, 'Could we reschedule to a later time?');
  await t.ctx.jobs.drain();
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toMatch(/your meeting is moved to \w+day, \d{1,2} \w+ \d{4} at (10|14):00 \(UTC\)/);
  await receiveProspectMessage(t.ctx, id, 'Actually, please cancel it');
  await t.ctx.jobs.drain();
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toContain('is cancelled');
  const body = (await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie })).json();
  expect(body.bookings.map((b: { status: string }) => b.status)).toEqual(['rescheduled', 'cancelled']);
});

it('calls no tool when the prospect does not ask to book', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 4 });
  const { id } = await startWebConversation(t.ctx, type.id);
  await receiveProspectMessage(t.ctx, id, 'Tell me more about widgets');
  await t.ctx.jobs.drain();
  expect(await t.ctx.db.select().from(agentToolCalls).where(eq(agentToolCalls.conversationId, id))).toEqual([]);
  expect((await agentMessagesOf(t.ctx, id)).at(-1)).toContain('You wrote');
});

it('writes a deterministic outcome analysis offline: booked when a meeting is booked, else by how it ended', async () => {
  const type = await buildPlaybook(t.ctx, { phases: 2 });
  const booked = await startWebConversation(t.ctx, type.id);
  for (const text of ['Can I book a call?', 'Thanks']) {
    await receiveProspectMessage(t.ctx, booked.id, text);
    await t.ctx.jobs.drain();
  }
  const plain = await startWebConversation(t.ctx, type.id);
  for (const text of ['Tell me more', 'Thanks']) {
    await receiveProspectMessage(t.ctx, plain.id, text);
    await t.ctx.jobs.drain();
  }
  const analysisOf = async (uuid: string) => (await t.request({ method: 'GET', url: `/api/conversation/${uuid}`, as: admin.cookie })).json().analysis;
  expect(await analysisOf(booked.uuid)).toMatchObject({ outcome: 'booked', score: 90, summary: expect.stringContaining('A meeting was booked after 2 prospect messages') });
  expect(await analysisOf(plain.uuid)).toMatchObject({ outcome: 'qualified', score: 70 });
});
