import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { campaignContacts, conversations, jobs, webhookEndpoints, webhookEvents } from '../../db/schema/index.ts';
import { recordOptOut } from '../../conversations/opt-out.ts';
import { quietHoursClock } from '../../conversations/quiet-hours.ts';
import { buildPlaybook } from '../../test/agent-factories.ts';
import { buildChannelAccount, PUBLIC_URL } from '../../test/channel-factories.ts';
import { startTwilioFake } from '../../test/fakes/twilio-fake.ts';
import { useFake, useTestApp, useUser } from '../../test/use-test-app.ts';
import { ACCOUNT_SID, AUTH_TOKEN, buildCallSetup, callForm, freshStorageDir, postSigned } from '../../voice/voice-test-kit.ts';
import { CAMPAIGN_TICK_JOB, runCampaignTick, STALE_CLAIM_MS } from './campaign-tick.ts';

/**
 * Outbound campaigns (issue 23 item 4, docs/campaigns.md) against the loopback Twilio fake. The scheduler is
 * driven tick by tick on a fake clock (quietHoursClock), so pacing, quiet hours and retry delays are exact.
 */
const twilioFake = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
const t = useTestApp({ env: () => ({ TWILIO_API_URL: twilioFake.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }) });
const admin = useUser(t, 'ADMIN');
const normal = useUser(t, 'NORMAL');

/** Wednesday 2030-01-16 10:00 in New York (UTC-5): inside quiet hours' allowed span and a 09:00–18:00 window. */
const TEN_AM_NY = new Date('2030-01-16T15:00:00Z');
let clock = TEN_AM_NY;
const realNow = quietHoursClock.now;
let callTypeId: number;
let smsTypeId: number;
beforeAll(async () => {
  callTypeId = (await buildCallSetup(t.ctx)).type.id;
  const smsType = await buildPlaybook(t.ctx, { initialMessage: 'Hi! Ready for a quick chat about widgets?' });
  smsTypeId = smsType.id;
  await buildChannelAccount(t.ctx, { type: 'TWILIO', pageId: '+15550002222', token: AUTH_TOKEN, config: { accountSid: ACCOUNT_SID }, conversationTypeId: smsType.id });
});
beforeEach(() => {
  clock = TEN_AM_NY;
  quietHoursClock.now = () => clock;
  twilioFake.calls.length = 0;
  twilioFake.messages.length = 0;
});
afterEach(() => {
  quietHoursClock.now = realNow;
  t.ctx.config.QUIET_HOURS_ENFORCED = false;
});

const phones = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `+1212555${String(1000 + from + i).padStart(4, '0')}`);
const create = (payload: object, as: string | undefined = admin.cookie) => t.request({ method: 'POST', url: '/api/admin/campaigns', as, payload });
async function campaign(payload: object): Promise<number> {
  const res = await create({ name: 'Spring list', conversationTypeId: callTypeId, channel: 'call', ...payload });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}
const act = (id: number, action: string) => t.request({ method: 'POST', url: `/api/admin/campaigns/${id}/${action}`, as: admin.cookie });
const detail = async (id: number) => (await t.request({ method: 'GET', url: `/api/admin/campaigns/${id}`, as: admin.cookie })).json();
const calledNumbers = () => twilioFake.calls.map((c) => c.to);

/** Twilio reports every placed call of the campaign as ended with `status` (what its status callback stores). */
async function endCalls(id: number, status = 'completed') {
  const ids = t.ctx.db.select({ id: campaignContacts.conversationId }).from(campaignContacts).where(and(eq(campaignContacts.campaignId, id), eq(campaignContacts.status, 'calling')));
  await t.ctx.db.update(conversations).set({ callStatus: status }).where(and(inArray(conversations.id, ids), isNotNull(conversations.callSid)));
}

/** Ticks until the campaign needs none (or `max`), moving the fake clock by each answer; `after` runs after every tick. */
async function tickAll(id: number, after: () => Promise<void> = async () => {}, max = 5000) {
  for (let i = 0; i < max; i++) {
    const delay = await runCampaignTick(t.ctx, id);
    await after();
    if (delay === null) return;
    clock = new Date(clock.getTime() + delay);
  }
  throw new Error('the campaign did not finish');
}

describe('POST /api/admin/campaigns', () => {
  it('creates a draft from a CSV (phone, name, other columns as fields), skipping bad and repeated numbers', async () => {
    const csv = 'Phone,Name,Company\n+1 (212) 555-0001,Dana,Acme\nnot a number,Bo,X\n+12125550001,Dana again,Y\n+12125550002,,Initech\n';
    const res = await create({ name: 'CSV list', conversationTypeId: callTypeId, channel: 'call', csv });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ contacts: 2, skipped: [{ row: 2 }, { row: 3, reason: 'appears earlier in the list' }] });
    const view = await detail(res.json().id);
    expect(view).toMatchObject({ status: 'draft', counts: { queued: 2, total: 2, done: 0, failed: 0, optedOut: 0 } });
    expect(view.contacts).toEqual([
      expect.objectContaining({ phone: '+12125550001', name: 'Dana', status: 'queued', conversationUuid: null }),
      expect.objectContaining({ phone: '+12125550002', name: null, status: 'queued' }),
    ]);
    const list = await t.request({ method: 'GET', url: '/api/admin/campaigns', as: admin.cookie });
    expect(list.json().map((c: { id: number }) => c.id)).toContain(res.json().id);
  });

  it('answers 400 for a bad body, CSV or channel, 404 for an unknown type or campaign, 401/403 for others and API keys', async () => {
    const base = { name: 'x', conversationTypeId: callTypeId, channel: 'call' };
    expect((await create({ ...base })).statusCode).toBe(400);
    expect((await create({ ...base, contacts: [{ phone: '+12125550003' }], window: { start: '18:00', end: '09:00' } })).statusCode).toBe(400);
    expect((await create({ ...base, channel: 'fax', contacts: [{ phone: '+12125550003' }] })).statusCode).toBe(400);
    const noPhone = await create({ ...base, csv: 'name\nDana\n' });
    expect(noPhone.json()).toMatchObject({ code: 'CAMPAIGN_CSV_INVALID' });
    expect((await create({ ...base, contacts: [{ phone: 'nope' }] })).json().code).toBe('CAMPAIGN_CSV_INVALID');
    const bare = await buildPlaybook(t.ctx);
    const noAccount = await create({ ...base, conversationTypeId: bare.id, contacts: [{ phone: '+12125550003' }] });
    expect(noAccount.json()).toMatchObject({ code: 'CAMPAIGN_CHANNEL_UNAVAILABLE' });
    expect((await create({ ...base, channel: 'whatsapp', contacts: [{ phone: '+12125550003' }] })).json().code).toBe('CAMPAIGN_CHANNEL_UNAVAILABLE');
    expect((await create({ ...base, conversationTypeId: 999999, contacts: [{ phone: '+12125550003' }] })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/api/admin/campaigns/999999', as: admin.cookie })).json().code).toBe('CAMPAIGN_NOT_FOUND');
    expect((await act(999999, 'start')).statusCode).toBe(404);

    expect((await t.request({ method: 'POST', url: '/api/admin/campaigns', payload: { ...base, contacts: [{ phone: '+12125550003' }] } })).statusCode).toBe(401);
    expect((await create({ ...base, contacts: [{ phone: '+12125550003' }] }, normal.cookie)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: '/api/admin/campaigns', as: normal.cookie })).statusCode).toBe(403);
    const key = (await t.request({ method: 'POST', url: '/api/admin/api-keys', as: admin.cookie, payload: { name: 'k', scopes: ['calls:write', 'conversations:write'] } })).json().key;
    const byKey = await t.request({ method: 'GET', url: '/api/admin/campaigns', headers: { authorization: `Bearer ${key}` } });
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json().code).toBe('API_KEY_NOT_ALLOWED');
  });
});

describe('running a campaign', () => {
  it('calls 200 contacts at the configured pace (fake clock), each once, and finishes with every contact answered', async () => {
    const id = await campaign({ contacts: phones(200).map((phone) => ({ phone })), callsPerMinute: 60, maxConcurrent: 10 });
    expect((await act(id, 'start')).json()).toMatchObject({ status: 'running' });
    const times: number[] = [];
    await tickAll(id, async () => {
      while (times.length < twilioFake.calls.length) times.push(clock.getTime());
      await endCalls(id);
    });
    expect(calledNumbers()).toHaveLength(200);
    expect(new Set(calledNumbers()).size).toBe(200);
    // Never more than 60 calls started in any minute, and the whole list in 199 s (± 5 %).
    for (let i = 60; i < times.length; i++) expect(times[i] - times[i - 60]).toBeGreaterThanOrEqual(60_000);
    const span = (times.at(-1)! - times[0]) / 1000;
    expect(span).toBeGreaterThanOrEqual(199 * 0.95);
    expect(span).toBeLessThanOrEqual(199 * 1.05);
    const view = await detail(id);
    expect(view).toMatchObject({ status: 'finished', counts: { total: 200, done: 200, answered: 200, queued: 0, calling: 0 } });
    expect(view.contacts[0].conversationUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(view.events.map((e: { kind: string }) => e.kind)).toEqual(['created', 'started', 'finished']);
  }, 240_000);

  it('keeps at most maxConcurrent calls in progress', async () => {
    const id = await campaign({ contacts: phones(5, 300).map((phone) => ({ phone })), callsPerMinute: 600, maxConcurrent: 2 });
    await act(id, 'start');
    for (let i = 0; i < 10; i++) clock = new Date(clock.getTime() + (await runCampaignTick(t.ctx, id))!);
    expect(twilioFake.calls).toHaveLength(2);
    await endCalls(id);
    for (let i = 0; i < 3; i++) clock = new Date(clock.getTime() + (await runCampaignTick(t.ctx, id))!);
    expect(twilioFake.calls).toHaveLength(4);
  });

  it('skips an opted-out number (and says so in a campaign.contact_finished event), calling the rest', async () => {
    await t.ctx.db.insert(webhookEndpoints).values({ url: 'https://hooks.example.com/x', events: ['campaign.contact_finished'], secretSealed: t.ctx.secrets.seal('s') });
    const [a, b] = phones(2, 400);
    await recordOptOut(t.ctx.db, b, 'sms', 'keyword "STOP"');
    const id = await campaign({ contacts: [{ phone: a }, { phone: b, name: 'Stopped' }] });
    await act(id, 'start');
    await tickAll(id, () => endCalls(id));
    expect(calledNumbers()).toEqual([a]);
    const view = await detail(id);
    expect(view.counts).toMatchObject({ optedOut: 1, answered: 1 });
    expect(view.contacts.find((c: { phone: string }) => c.phone === b)).toMatchObject({ status: 'opted_out', conversationUuid: null });
    const events = await t.ctx.db.select().from(webhookEvents).where(eq(webhookEvents.type, 'campaign.contact_finished'));
    const data = events.map((e) => e.data as { contact: { phone: string; status: string }; conversation: unknown });
    expect(data.map((d) => [d.contact.phone, d.contact.status]).sort()).toEqual([
      [a, 'answered'],
      [b, 'opted_out'],
    ]);
    expect(data.find((d) => d.contact.phone === a)!.conversation).toMatchObject({ uuid: expect.any(String) });
    await t.ctx.db.delete(webhookEndpoints);
  });

  it('waits through quiet hours in the callee’s zone (2 AM in New York) and calls at 8 AM', async () => {
    t.ctx.config.QUIET_HOURS_ENFORCED = true;
    clock = new Date('2030-01-16T07:00:00Z'); // 2 AM in New York
    const [ny] = phones(1, 500);
    const id = await campaign({ contacts: [{ phone: ny }] });
    await act(id, 'start');
    const delay = await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(0);
    const [row] = await t.ctx.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, id));
    expect(row.notBefore?.toISOString()).toBe('2030-01-16T13:00:00.000Z');
    expect(delay).toBeGreaterThan(0);
    clock = new Date('2030-01-16T12:59:00Z');
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(0);
    clock = new Date('2030-01-16T13:00:00Z');
    await runCampaignTick(t.ctx, id);
    expect(calledNumbers()).toEqual([ny]);
  });

  it('keeps to the calling window in the callee’s local time', async () => {
    const [ny] = phones(1, 550);
    const id = await campaign({ contacts: [{ phone: ny }], window: { start: '11:30', end: '17:00', days: ['wed'] } });
    await act(id, 'start');
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(0);
    const [row] = await t.ctx.db.select().from(campaignContacts).where(eq(campaignContacts.campaignId, id));
    expect(row.notBefore?.toISOString()).toBe('2030-01-16T16:30:00.000Z');
    clock = row.notBefore!;
    await runCampaignTick(t.ctx, id);
    expect(calledNumbers()).toEqual([ny]);
  });

  it('pauses and resumes: nothing is called while paused; stop ends it for good', async () => {
    const list = phones(4, 600);
    const id = await campaign({ contacts: list.map((phone) => ({ phone })), callsPerMinute: 60 });
    await act(id, 'start');
    clock = new Date(clock.getTime() + (await runCampaignTick(t.ctx, id))!);
    expect(twilioFake.calls).toHaveLength(1);
    expect((await act(id, 'pause')).json()).toMatchObject({ status: 'paused' });
    expect((await act(id, 'pause')).json()).toMatchObject({ code: 'CAMPAIGN_STATE' });
    await endCalls(id);
    expect(await runCampaignTick(t.ctx, id)).toBeNull();
    clock = new Date(clock.getTime() + 3_600_000);
    expect(await runCampaignTick(t.ctx, id)).toBeNull();
    expect(twilioFake.calls).toHaveLength(1);
    expect((await act(id, 'start')).json()).toMatchObject({ status: 'running' });
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(2);
    expect((await act(id, 'stop')).json()).toMatchObject({ status: 'stopped' });
    await endCalls(id);
    await tickAll(id);
    expect(twilioFake.calls).toHaveLength(2);
    const view = await detail(id);
    expect(view.counts).toMatchObject({ answered: 2, queued: 2 });
    expect(view.events.map((e: { kind: string; by: string }) => [e.kind, e.by])).toEqual([
      ['created', admin.email],
      ['started', admin.email],
      ['paused', admin.email],
      ['resumed', admin.email],
      ['stopped', admin.email],
    ]);
    expect((await act(id, 'start')).statusCode).toBe(409);
  });

  it('calls again after no answer (Twilio’s status callback) once the retry delay has passed, then gives up', async () => {
    const [p] = phones(1, 700);
    const id = await campaign({ contacts: [{ phone: p }], retries: 1, retryDelayMinutes: 30 });
    await act(id, 'start');
    const noAnswer = async () => {
      const placed = twilioFake.calls.at(-1)!;
      const [conversation] = await t.ctx.db.select().from(conversations).where(eq(conversations.callSid, placed.sid));
      const res = await postSigned(t, `/api/voice/calls/${conversation.uuid}/status`, callForm(placed.sid, { To: p, CallStatus: 'no-answer' }));
      expect(res.statusCode).toBeLessThan(300);
    };
    await runCampaignTick(t.ctx, id);
    await noAnswer();
    await runCampaignTick(t.ctx, id);
    expect((await detail(id)).contacts[0]).toMatchObject({ status: 'queued', attempts: 1, detail: expect.stringContaining('No answer on attempt 1') });
    clock = new Date(clock.getTime() + 29 * 60_000);
    await runCampaignTick(t.ctx, id);
    expect(twilioFake.calls).toHaveLength(1);
    clock = new Date(clock.getTime() + 60_000);
    await runCampaignTick(t.ctx, id);
    expect(calledNumbers()).toEqual([p, p]);
    await noAnswer();
    await tickAll(id);
    expect(await detail(id)).toMatchObject({ status: 'finished', counts: { noAnswer: 1, failed: 1 }, contacts: [{ status: 'no_answer', attempts: 2 }] });
  });

  it('never contacts a number twice after a crash between its claim and the send', async () => {
    const [cut, next] = phones(2, 800);
    const id = await campaign({ contacts: [{ phone: cut }, { phone: next }], callsPerMinute: 60 });
    await act(id, 'start');
    // What a process killed right after the claim's commit leaves: the contact claimed, no conversation.
    await t.ctx.db.update(campaignContacts).set({ status: 'calling', attempts: 1, claimedAt: clock }).where(eq(campaignContacts.phone, cut));
    await runCampaignTick(t.ctx, id);
    clock = new Date(clock.getTime() + STALE_CLAIM_MS + 1000);
    await tickAll(id, () => endCalls(id));
    expect(calledNumbers()).toEqual([next]);
    expect((await detail(id)).contacts[0]).toMatchObject({ phone: cut, status: 'failed', detail: expect.stringContaining('not tried again') });
  });

  it('sends the opening SMS through the lead path, runs as a job after start, and exports the results as CSV', async () => {
    const res = await create({ name: 'SMS, list', conversationTypeId: smsTypeId, channel: 'sms', csv: 'phone,name,plan\n+12125550901,Ana,pro\n' });
    const id = res.json().id;
    await act(id, 'start');
    const [tick] = await t.ctx.db.select().from(jobs).where(and(eq(jobs.name, CAMPAIGN_TICK_JOB), sql`${jobs.payload}->>'campaignId' = ${String(id)}`));
    expect(tick.status).toBe('pending');
    await t.ctx.jobs.drain();
    expect(twilioFake.messages.map((m) => [m.to, m.body])).toEqual([['+12125550901', 'Hi! Ready for a quick chat about widgets?']]);
    expect((await detail(id)).contacts[0]).toMatchObject({ status: 'sent', conversationUuid: expect.any(String) });
    const csv = await t.request({ method: 'GET', url: `/api/admin/campaigns/${id}/export`, as: admin.cookie });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('SMS-list-results.csv');
    const [header, row] = csv.body.trim().split(/\r?\n/);
    expect(header).toBe('phone,name,plan,status,attempts,conversation_uuid,detail,finished_at');
    expect(row).toMatch(/^\+12125550901,Ana,pro,sent,1,[0-9a-f-]{36},,2030-01-16T15:00:00.000Z$/);
  });
});
