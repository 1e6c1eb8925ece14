import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BusinessHoursConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import { eq } from 'drizzle-orm';
import { conversationTypes, messagingAccounts, prospects } from '../db/schema/index.ts';
import { businessHoursUntil, quietHoursClock, quietNow, quietUntil, timeZoneOfPhone } from '../conversations/quiet-hours.ts';
import { agentMessagesOf, buildPlaybook, buildProspectConversation, makeFollowUpDue, pendingJobs, unansweredOf } from '../test/agent-factories.ts';
import { PUBLIC_URL } from '../test/channel-factories.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { startTwilioFake } from '../test/fakes/twilio-fake.ts';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { ACCOUNT_SID, AUTH_TOKEN, buildCallSetup, CALLEE, freshStorageDir } from '../voice/voice-test-kit.ts';
import { receiveProspectMessage } from './agent.service.ts';

/** Quiet hours (issue 23): follow-ups and calls wait for 8 AM–9 PM of the prospect's zone, on a moved clock. */
const ZONE = 'America/New_York';
// 2 AM and 8 AM in New York on a winter day (UTC-5), far enough ahead that no real "now" reaches them.
const TWO_AM = new Date('2030-01-15T07:00:00.000Z');
const EIGHT_AM = new Date('2030-01-15T13:00:00.000Z');

describe('quietUntil', () => {
  it('is null between 8 AM and 9 PM local, else the next 8 AM local', () => {
    expect(quietUntil(new Date('2030-01-15T19:00:00Z'), ZONE)).toBeNull(); // 2 PM
    expect(quietUntil(TWO_AM, ZONE)).toEqual(EIGHT_AM);
    expect(quietUntil(new Date('2030-01-16T02:30:00Z'), ZONE)).toEqual(new Date('2030-01-16T13:00:00Z')); // 9:30 PM
    expect(quietUntil(new Date('2030-01-15T13:00:00Z'), ZONE)).toBeNull(); // 8:00 sharp
    expect(quietUntil(new Date('2030-01-16T02:00:00Z'), ZONE)).toEqual(new Date('2030-01-16T13:00:00Z')); // 9:00 PM sharp
    expect(quietUntil(TWO_AM, 'Asia/Tokyo')).toBeNull(); // 4 PM in Tokyo
  });
});

describe('business hours', () => {
  // Mon–Fri 9:00–17:00 in New York. 2030-01-15 is a Tuesday.
  const hours: BusinessHoursConfig = { timeZone: ZONE, days: { mon: ['09:00', '17:00'], tue: ['09:00', '17:00'], wed: ['09:00', '17:00'], thu: ['09:00', '17:00'], fri: ['09:00', '17:00'] } };
  const config = (enforced: boolean) => ({ DEFAULT_TIME_ZONE: ZONE, QUIET_HOURS_ENFORCED: enforced });
  const realNow = quietHoursClock.now;
  afterEach(() => {
    quietHoursClock.now = realNow;
  });

  it('businessHoursUntil: null inside, else the next opening (same day, next day, over the weekend)', () => {
    expect(businessHoursUntil(new Date('2030-01-15T15:00:00Z'), hours)).toBeNull(); // Tue 10 AM
    expect(businessHoursUntil(new Date('2030-01-15T13:00:00Z'), hours)).toEqual(new Date('2030-01-15T14:00:00Z')); // Tue 8 AM → 9 AM
    expect(businessHoursUntil(new Date('2030-01-15T22:00:00Z'), hours)).toEqual(new Date('2030-01-16T14:00:00Z')); // Tue 5 PM → Wed 9 AM
    expect(businessHoursUntil(new Date('2030-01-18T23:00:00Z'), hours)).toEqual(new Date('2030-01-21T14:00:00Z')); // Fri 6 PM → Mon 9 AM
    expect(businessHoursUntil(new Date('2030-01-19T17:00:00Z'), hours)).toEqual(new Date('2030-01-21T14:00:00Z')); // Sat noon → Mon 9 AM
  });

  it('quietNow: the first moment both the business hours and the person\'s quiet hours allow', async () => {
    const typeConfig = JSON.stringify({ businessHours: hours });
    quietHoursClock.now = () => new Date('2030-01-15T15:00:00Z'); // Tue 10 AM New York, 7 AM Los Angeles
    expect(await quietNow(config(true), '+12125550123', typeConfig)).toBeNull();
    expect(await quietNow(config(true), '+14155550123', typeConfig)).toEqual({
      until: new Date('2030-01-15T16:00:00Z'),
      timeZone: 'America/Los_Angeles',
      reason: 'quiet-hours',
    });
    quietHoursClock.now = () => new Date('2030-01-19T17:00:00Z'); // Saturday noon
    expect(await quietNow(config(true), '+12125550123', typeConfig)).toEqual({ until: new Date('2030-01-21T14:00:00Z'), timeZone: ZONE, reason: 'business-hours' });
    // Business hours hold with quiet hours off; without them (and quiet hours off) nothing waits.
    expect(await quietNow(config(false), '+12125550123', typeConfig)).toMatchObject({ reason: 'business-hours' });
    expect(await quietNow(config(false), '+12125550123', null)).toBeNull();
    // Friday 4 PM New York is 10 PM in Madrid: quiet there; the next 8 AM Madrid is Saturday, closed → Monday 9 AM New York.
    quietHoursClock.now = () => new Date('2030-01-18T21:00:00Z');
    expect(await quietNow(config(true), '+34600111999', typeConfig)).toEqual({ until: new Date('2030-01-21T14:00:00Z'), timeZone: 'Europe/Madrid', reason: 'quiet-hours' });
  });
});

describe('timeZoneOfPhone', () => {
  it('reads the zone from the country and area code; null where the prefix spans clocks that differ', async () => {
    expect(await timeZoneOfPhone('+12125550123', TWO_AM)).toBe('America/New_York');
    expect(await timeZoneOfPhone('+14155550123', TWO_AM)).toBe('America/Los_Angeles');
    expect(await timeZoneOfPhone('+18085550123', TWO_AM)).toBe('Pacific/Honolulu');
    expect(await timeZoneOfPhone('+34600111999', TWO_AM)).toBe('Europe/Madrid');
    expect(await timeZoneOfPhone('+4915112345678', TWO_AM)).toBe('Europe/Berlin');
    // Zones that agree count as one (London, Guernsey, Isle of Man).
    expect(await timeZoneOfPhone('+447700900123', TWO_AM)).toMatch(/^Europe\//);
    expect(await timeZoneOfPhone('+15555550123', TWO_AM)).toBeNull(); // 555: no area, the whole NANP
    expect(await timeZoneOfPhone('instagram:1:igsid', TWO_AM)).toBeNull();
    expect(await timeZoneOfPhone(null, TWO_AM)).toBeNull();
  });
});

describe('quiet hours on follow-ups and calls', () => {
  const fake = useFake(new OpenAiFake());
  const twilio = useFake(() => startTwilioFake({ accounts: { [ACCOUNT_SID]: AUTH_TOKEN } }));
  const t = useTestApp({
    env: () => ({ ...fake.env(), QUIET_HOURS_ENFORCED: 'true', DEFAULT_TIME_ZONE: ZONE, TWILIO_API_URL: twilio.url, PUBLIC_URL, STORAGE_DIR: freshStorageDir() }),
  });
  const admin = useUser(t, 'ADMIN');
  const realNow = quietHoursClock.now;
  /** Make a Call to CALLEE (+1 415: America/Los_Angeles). */
  const makeCall = (conversationTypeId: number) =>
    t.request({
      method: 'POST',
      url: `/api/admin/call/${encodeURIComponent(CALLEE)}`,
      as: admin.cookie,
      payload: { conversationTypeId, contactId: null, useRealtimeApi: false },
    });
  beforeEach(() => fake.reset());
  afterEach(() => {
    quietHoursClock.now = realNow;
  });

  it('a follow-up due at 2 AM waits until 8 AM local, then goes out', async () => {
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 1 } } });
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    quietHoursClock.now = () => new Date('2030-01-15T19:00:00Z');
    await receiveProspectMessage(t.ctx, conversation.id, 'tell me more'); // a reply is never delayed
    await t.ctx.jobs.drain();
    const answered = (await agentMessagesOf(t.ctx, conversation.id)).length;
    expect(answered).toBe(1);

    quietHoursClock.now = () => TWO_AM;
    await makeFollowUpDue(t.ctx, conversation.id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);
    expect((await unansweredOf(t.ctx, conversation.id)).earliestReplyDateTime).toEqual(EIGHT_AM);
    const [job] = await pendingJobs(t.ctx, `follow-up:${conversation.id}`);
    expect(job.runAt).toEqual(EIGHT_AM);

    quietHoursClock.now = () => EIGHT_AM;
    await makeFollowUpDue(t.ctx, conversation.id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(1);
    expect(await agentMessagesOf(t.ctx, conversation.id)).toHaveLength(answered + 1);
  });

  it('Make a Call at 2 AM local answers 409 QUIET_HOURS with the time it may happen, and places nothing', async () => {
    const setup = await buildCallSetup(t.ctx);
    quietHoursClock.now = () => TWO_AM;
    const res = await makeCall(setup.type.id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'QUIET_HOURS', error: expect.stringContaining('Jan 15, 2030, 8:00') });
    expect(twilio.calls).toHaveLength(0);
  });

  it("a call goes by the callee's zone from the number: 9 AM in New York (the default zone) is 6 AM for a San Francisco number", async () => {
    const setup = await buildCallSetup(t.ctx);
    quietHoursClock.now = () => new Date('2030-01-15T14:00:00Z');
    const res = await makeCall(setup.type.id); // +1 415: America/Los_Angeles
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'QUIET_HOURS', error: expect.stringMatching(/\(America\/Los_Angeles\)\. It may happen from Jan 15, 2030, 8:00\sAM/) });
    expect(twilio.calls).toHaveLength(0);
  });

  it('Make a Call outside the type\'s business hours answers 409 QUIET_HOURS naming them', async () => {
    const setup = await buildCallSetup(t.ctx);
    await t.ctx.db
      .update(conversationTypes)
      .set({ config: JSON.stringify({ businessHours: { timeZone: 'America/Los_Angeles', days: { mon: ['09:00', '17:00'] } } }) })
      .where(eq(conversationTypes.id, setup.type.id));
    quietHoursClock.now = () => new Date('2030-01-15T19:00:00Z'); // Tuesday 11 AM Los Angeles
    const res = await makeCall(setup.type.id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'QUIET_HOURS', error: expect.stringMatching(/outside the business hours of this conversation type \(America\/Los_Angeles\)\. It may happen from Jan 21, 2030, 9:00/) });
    expect(twilio.calls).toHaveLength(0);
  });

  it('a conversation type\'s businessHours are validated (400 naming the field)', async () => {
    const save = (businessHours: unknown) =>
      t.request({
        method: 'POST',
        url: '/api/admin/conversation-type/create-edit',
        as: admin.cookie,
        payload: { rolePrompt: 'r', errorPrompt: 'e', config: JSON.stringify({ businessHours }) },
      });
    for (const bad of [{ timeZone: 'Mars/Base', days: { mon: ['09:00', '17:00'] } }, { timeZone: ZONE, days: { mon: ['17:00', '09:00'] } }, { timeZone: ZONE, days: {} }]) {
      const res = await save(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/businessHours/);
    }
    expect((await save({ timeZone: ZONE, days: { mon: ['09:00', '17:00'], sat: ['10:00', '14:00'] } })).statusCode).toBe(200);
  });

  it("a follow-up waits for 8 AM in the prospect's zone from their phone number, not the default zone", async () => {
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 1 } } });
    const { conversation, prospect, account } = await buildProspectConversation(t.ctx, type.id);
    await t.ctx.db.update(messagingAccounts).set({ type: 'SMS_GATEWAY' }).where(eq(messagingAccounts.id, account.id));
    await t.ctx.db.update(prospects).set({ externalId: '+13105550142' }).where(eq(prospects.id, prospect.id)); // Los Angeles
    quietHoursClock.now = () => new Date('2030-01-15T19:00:00Z');
    await receiveProspectMessage(t.ctx, conversation.id, 'tell me more');
    await t.ctx.jobs.drain();
    quietHoursClock.now = () => new Date('2030-01-15T14:00:00Z'); // 9 AM New York, 6 AM Los Angeles
    await makeFollowUpDue(t.ctx, conversation.id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);
    expect((await unansweredOf(t.ctx, conversation.id)).earliestReplyDateTime).toEqual(new Date('2030-01-15T16:00:00Z'));
  });
});
