import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bookings, campaignContacts, conversations, messages } from '../../db/schema/index.ts';
import { recordOptOut } from '../../conversations/opt-out.ts';
import { quietHoursClock } from '../../conversations/quiet-hours.ts';
import { PUBLIC_URL } from '../../test/channel-factories.ts';
import { startGhlFake } from '../../test/fakes/ghl-fake.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { ACCOUNT_SID, AUTH_TOKEN, buildCallSetup, callForm, freshStorageDir, postSigned } from '../../voice/voice-test-kit.ts';
import { runCampaignTick } from './campaign-tick.ts';

/**
 * Campaign retries per outcome with Twilio's answering-machine detection, the campaign's voicemail message,
 * a scheduled start and a GoHighLevel pipeline stage as the audience (issue 23 item 4, docs/campaigns.md),
 * against the loopback Twilio and GoHighLevel fakes, tick by tick on a fake clock.
 */
const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
const ghl = useFake(() => startGhlFake({ seedCount: 120 }));
const t = useTestApp({ env: () => ({ ...ghl.env(), TWILIO_API_URL: twilioFake.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

/** Wednesday 2030-01-16 17:00 in New York (UTC-5). */
const FIVE_PM_NY = new Date('2030-01-16T22:00:00Z');
let clock = FIVE_PM_NY;
const realNow = quietHoursClock.now;
let typeId: number;
beforeAll(async () => {
  typeId = (await buildCallSetup(t.ctx, { config: { crm: 'GHL', voice: { voicemailMessage: 'The type’s own voicemail.' } } })).type.id;
});
beforeEach(() => {
  clock = FIVE_PM_NY;
  quietHoursClock.now = () => clock;
  twilioFake.calls.length = 0;
});
afterEach(() => {
  quietHoursClock.now = realNow;
});

async function campaign(payload: object): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/admin/campaigns', as: admin.cookie, payload: { name: 'Retry list', conversationTypeId: typeId, channel: 'call', ...payload } });
  expect(res.statusCode).toBe(201);
  const id = res.json().id;
  expect((await t.request({ method: 'POST', url: `/api/admin/campaigns/${id}/start`, as: admin.cookie })).statusCode).toBe(200);
  return id;
}
const detail = async (id: number) => (await t.request({ method: 'GET', url: `/api/admin/campaigns/${id}`, as: admin.cookie })).json();
const contactRow = async (id: number) => (await t.ctx.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, id)))[0];

/** Twilio's callbacks for the last placed call: the async AMD verdict (`AnsweredBy`), or a final `CallStatus`. */
async function lastCall() {
  const placed = twilioFake.calls.at(-1)!;
  const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.callSid, placed.sid));
  return { placed, conversation };
}
async function machineAnswers() {
  const { placed, conversation } = await lastCall();
  const res = await postSigned(t, `/api/voice/calls/${conversation.uuid}/amd`, callForm(placed.sid, { AnsweredBy: 'machine_end_beep', MachineDetectionDuration: '3800' }));
  expect(res.statusCode).toBe(200);
  return { placed, conversation };
}
/** Ticks (moving the clock by each answer) until the campaign needs none. */
async function tickToEnd(id: number) {
  for (let delay = await runCampaignTick(t.ctx, id); delay !== null; delay = await runCampaignTick(t.ctx, id)) clock = new Date(clock.getTime() + delay);
}
async function callEnds(status: string) {
  const { placed, conversation } = await lastCall();
  expect((await postSigned(t, `/api/voice/calls/${conversation.uuid}/status`, callForm(placed.sid, { CallStatus: status, CallDuration: '0' }))).statusCode).toBeLessThan(300);
}

describe('retries and the voicemail message', () => {
  it('a machine: the campaign’s message is left (<Say>), the contact is called again after the delay inside the window, then ends as voicemail', async () => {
    const phone = '+12125557001';
    const voicemailMessage = 'Hi, this is Sam from Widgets. Call us back at 555-0100.';
    const id = await campaign({ contacts: [{ phone }], voicemailMessage, retries: { noAnswer: 0, busy: 0, voicemail: 1, delayMinutes: 90 }, window: { start: '09:00', end: '18:00' } });
    expect(await detail(id)).toMatchObject({ voicemailMessage, retryPolicy: { noAnswer: 0, busy: 0, voicemail: 1, delayMinutes: 90 } });
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(1);
    // Placed with asynchronous answering-machine detection that waits for the greeting's end.
    expect(twilioFake.calls[0].params).toMatchObject({ MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true' });

    const { placed, conversation } = await machineAnswers();
    expect(placed.updates.at(-1)!.Twiml).toMatch(/<Say[^>]*>Hi, this is Sam from Widgets\. Call us back at 555-0100\.<\/Say><Hangup\/>/);
    const said = await t.ctx.db.select().from(messages).where(eq(messages.conversationId, conversation.id));
    expect(said.map((m) => m.message)).toContain(voicemailMessage);
    expect(said.map((m) => m.message)).not.toContain('The type’s own voicemail.');
    await callEnds('completed');

    await runCampaignTick(t.ctx, id);
    expect((await detail(id)).contacts[0]).toMatchObject({ status: 'queued', attempts: 1, detail: expect.stringContaining('Voicemail (a machine answered) on attempt 1') });
    // 90 minutes later it is 18:30 in New York, past the window: the retry waits for 09:00 the next day.
    clock = new Date(clock.getTime() + 90 * 60_000);
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(1);
    expect((await contactRow(id)).notBefore?.toISOString()).toBe('2030-01-17T14:00:00.000Z');
    clock = new Date('2030-01-17T14:00:00Z');
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls.map((c) => c.to)).toEqual([phone, phone]);

    await machineAnswers();
    await callEnds('completed');
    await tickToEnd(id);
    expect(twilioFake.calls).toHaveLength(2);
    expect(await detail(id)).toMatchObject({ status: 'finished', counts: { voicemail: 1, done: 1 }, contacts: [{ status: 'voicemail', attempts: 2 }] });
  });

  it('counts retries per outcome: busy is tried again, no answer (0 retries) is not', async () => {
    const [busy, silent] = ['+12125557002', '+12125557003'];
    const id = await campaign({ contacts: [{ phone: busy }, { phone: silent }], callsPerMinute: 600, retries: { noAnswer: 0, busy: 1, delayMinutes: 10 } });
    await runCampaignTick(t.ctx, id);
    await callEnds('busy');
    clock = new Date(clock.getTime() + 100);
    await runCampaignTick(t.ctx, id);
    await callEnds('no-answer');
    await runCampaignTick(t.ctx, id);
    expect((await detail(id)).contacts.map((c: { status: string }) => c.status)).toEqual(['queued', 'no_answer']);
    clock = new Date(clock.getTime() + 10 * 60_000);
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls.map((c) => c.to)).toEqual([busy, silent, busy]);
    await callEnds('busy');
    await tickToEnd(id);
    expect(twilioFake.calls).toHaveLength(3);
    expect(await detail(id)).toMatchObject({ status: 'finished', counts: { busy: 1, noAnswer: 1, failed: 2 } });
  });
});

describe('a scheduled start', () => {
  it('waits for startAt, then for the calling window in the callee’s zone', async () => {
    const phone = '+12125557004';
    // Starts at 06:00 UTC on Thursday: 1 AM in New York, before the 09:00–18:00 window.
    const id = await campaign({ contacts: [{ phone }], startAt: '2030-01-17T06:00:00Z', window: { start: '09:00', end: '18:00' } });
    expect((await detail(id)).startAt).toBe('2030-01-17T06:00:00.000Z');
    const wait = await runCampaignTick(t.ctx, id);
    expect(wait).toBe(5 * 60_000);
    clock = new Date('2030-01-17T05:59:59Z');
    expect(await runCampaignTick(t.ctx, id)).toBe(1000);
    expect(twilioFake.calls).toHaveLength(0);
    expect((await contactRow(id)).notBefore).toBeNull();
    clock = new Date('2030-01-17T06:00:00Z');
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(0);
    expect((await contactRow(id)).notBefore?.toISOString()).toBe('2030-01-17T14:00:00.000Z');
    clock = new Date('2030-01-17T14:00:00Z');
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls.map((c) => c.to)).toEqual([phone]);
  });

  it('refuses a startAt that is not an ISO date and time', async () => {
    const res = await t.request({ method: 'POST', url: '/api/admin/campaigns', as: admin.cookie, payload: { name: 'x', conversationTypeId: typeId, channel: 'call', contacts: [{ phone: '+12125557005' }], startAt: 'tomorrow' } });
    expect(res.statusCode).toBe(400);
  });
});

describe('a GoHighLevel pipeline stage as the audience', () => {
  it('pulls every opportunity of the stage (two pages) with the type’s GHL credentials; contacts without a phone are skipped', async () => {
    ghl.requests.length = 0;
    const res = await t.request({ method: 'POST', url: '/api/admin/campaigns', as: admin.cookie, payload: { name: 'Stage list', conversationTypeId: typeId, channel: 'call', audience: { ghlPipelineStageId: 'st-new' } } });
    expect(res.statusCode).toBe(201);
    // 120 opportunities, every 7th without a phone.
    expect(res.json()).toMatchObject({ contacts: 103 });
    expect(res.json().skipped).toHaveLength(17);
    const searches = ghl.requests.filter((r) => r.path === '/opportunities/search');
    expect(searches).toHaveLength(2);
    expect(searches[0].query).toMatchObject({ location_id: ghl.locationId, pipeline_stage_id: 'st-new', limit: '100' });
    expect(searches[1].query).toMatchObject({ startAfterId: 'opp-100' });
    const view = await detail(res.json().id);
    expect(view.audience).toEqual({ ghlPipelineStageId: 'st-new' });
    expect(view.contacts[0]).toMatchObject({ phone: '+15550000001', name: 'Contact 01' });
  });

  it('answers 400 CRM_NOT_LINKED for a type without GoHighLevel', async () => {
    const other = (await buildCallSetup(t.ctx, { pageId: '+15550009999' })).type.id;
    const res = await t.request({ method: 'POST', url: '/api/admin/campaigns', as: admin.cookie, payload: { name: 'x', conversationTypeId: other, channel: 'call', audience: { ghlPipelineStageId: 'st-new' } } });
    expect(res.json()).toMatchObject({ code: 'CRM_NOT_LINKED' });
  });
});

describe('campaign figures in the analytics', () => {
  it('GET /api/admin/analytics/campaigns: per campaign contacted, answered, voicemail, booked and opted out in the range (ADMIN only)', async () => {
    const [booked, machine, stopped] = ['+12125557101', '+12125557102', '+12125557103'];
    await recordOptOut(t.ctx.db, stopped, 'sms', 'keyword "STOP"');
    const id = await campaign({ name: 'Figures', contacts: [{ phone: booked }, { phone: machine }, { phone: stopped }], callsPerMinute: 600 });
    await runCampaignTick(t.ctx, id);
    const { conversation } = await lastCall();
    await t.ctx.db.insert(bookings).values({ conversationId: conversation.id, provider: 'demo', externalId: `camp-${id}`, start: clock, end: clock, timeZone: 'UTC' });
    await callEnds('completed');
    clock = new Date(clock.getTime() + 100);
    await runCampaignTick(t.ctx, id);
    await machineAnswers();
    await callEnds('completed');
    await tickToEnd(id);

    const url = `/api/admin/analytics/campaigns?conversationType=${typeId}&from=2030-01-16T00:00:00Z&to=2030-01-18T00:00:00Z`;
    const res = await t.request({ method: 'GET', url, as: admin.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.json().campaigns.find((c: { id: number }) => c.id === id)).toEqual({
      id,
      name: 'Figures',
      channel: 'call',
      status: 'finished',
      contacted: 2,
      answered: 0,
      voicemail: 1,
      noAnswer: 0,
      sent: 0,
      booked: 1,
      optedOut: 1,
      failed: 0,
    });
    // Outside the range: nothing of it.
    const before = await t.request({ method: 'GET', url: `/api/admin/analytics/campaigns?conversationType=${typeId}&from=2030-01-01T00:00:00Z&to=2030-01-15T00:00:00Z`, as: admin.cookie });
    expect(before.json().campaigns.map((c: { id: number }) => c.id)).not.toContain(id);
    expect((await t.request({ method: 'GET', url, as: normal.cookie })).json()).toEqual({ campaigns: [] });
  });
});
