import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { conversations, jobs } from '../db/schema/index.ts';
import { AppError } from '../lib/errors.ts';
import {
  agentMessagesOf,
  buildPlaybook,
  buildProspectConversation,
  conversationRow,
  makeFollowUpDue,
  outboxOf,
  pendingJobs,
  unansweredOf,
} from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { claimLikeTheRunner, reportedOutcomes, expireLease, runnerKilledOnEnqueue } from '../test/job-scenarios.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { receiveProspectMessage, sendHumanMessage, setConversationPhase, triggerFollowUp } from './agent.service.ts';
import { ANALYSIS_JOB } from '../conversations/conversation-outcome.ts';
import { FOLLOW_UP_JOB } from './follow-up.ts';
import { followUpJob } from './follow-up.job.ts';

const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env() });
beforeEach(() => fake.reset());

/** An inbound conversation the agent has answered once, so a silence has started. */
async function answeredConversation(config: Record<string, unknown> = { followUp: { delaysMinutes: [30, 120], max: 2 } }, followUpPrompt?: string | null) {
  const type = await buildPlaybook(t.ctx, { config, followUpPrompt });
  const { conversation } = await buildProspectConversation(t.ctx, type.id);
  await receiveProspectMessage(t.ctx, conversation.id, 'tell me more');
  await t.ctx.jobs.drain();
  return conversation.id;
}

const minutesFromNow = (date: Date) => (date.getTime() - Date.now()) / 60_000;

describe('automatic follow-ups', () => {
  it('starts a silence after the reply: an ACTIVE entry and a durable job due after the first delay', async () => {
    const id = await answeredConversation();
    const entry = await unansweredOf(t.ctx, id);
    expect(entry).toMatchObject({ status: 'ACTIVE', followUpCount: 0 });
    expect(minutesFromNow(entry.earliestReplyDateTime)).toBeGreaterThan(29);
    expect(minutesFromNow(entry.earliestReplyDateTime)).toBeLessThanOrEqual(30);
    const [job] = await pendingJobs(t.ctx, `follow-up:${id}`);
    expect(job.runAt.getTime()).toBe(entry.earliestReplyDateTime.getTime());
    // Not due yet: draining sends nothing.
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);
  });

  it('sends follow-ups from the phase prompt when due, up to the maximum, then stops', async () => {
    const id = await answeredConversation();
    await makeFollowUpDue(t.ctx, id);
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake follow-up');
    expect(fake.requests.find((r) => r.schemaName === 'follow_up')!.messages[0].content).toContain('Remind them about question 0.');
    let entry = await unansweredOf(t.ctx, id);
    expect(entry.followUpCount).toBe(1);
    // The second delay (120 minutes) applies to the second follow-up.
    expect(minutesFromNow(entry.earliestReplyDateTime)).toBeGreaterThan(119);
    expect(await pendingJobs(t.ctx, `follow-up:${id}`)).toHaveLength(1);
    expect((await outboxOf(t.ctx, id)).at(-1)!.payload).toMatchObject({ text: 'Fake follow-up' });

    await makeFollowUpDue(t.ctx, id);
    await t.ctx.jobs.drain();
    entry = await unansweredOf(t.ctx, id);
    expect(entry.followUpCount).toBe(2);
    expect(await pendingJobs(t.ctx, `follow-up:${id}`)).toHaveLength(0);
    await makeFollowUpDue(t.ctx, id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(2);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply', 'Fake follow-up', 'Fake follow-up']);
  });

  it('is cancelled by a prospect reply, which also clears the entry', async () => {
    const id = await answeredConversation();
    await receiveProspectMessage(t.ctx, id, 'sorry, was busy');
    expect(await pendingJobs(t.ctx, `follow-up:${id}`)).toHaveLength(0);
    expect(await unansweredOf(t.ctx, id)).toBeUndefined();
    // The reply's turn answers and starts a new silence from zero.
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);
    expect(await unansweredOf(t.ctx, id)).toMatchObject({ followUpCount: 0, status: 'ACTIVE' });
  });

  it('does nothing when due while the entry is INACTIVE or the phase has no followUpPrompt', async () => {
    const id = await answeredConversation();
    const { unansweredConversations } = await import('../db/schema/index.ts');
    const { eq } = await import('drizzle-orm');
    await t.ctx.db.update(unansweredConversations).set({ status: 'INACTIVE' }).where(eq(unansweredConversations.conversationId, id));
    await makeFollowUpDue(t.ctx, id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);

    const silent = await answeredConversation(undefined, null);
    await makeFollowUpDue(t.ctx, silent);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(0);
    expect(await pendingJobs(t.ctx, `follow-up:${silent}`)).toHaveLength(0);
  });

  it('is claimed once when two drains race for the due job', async () => {
    const id = await answeredConversation();
    await makeFollowUpDue(t.ctx, id);
    await Promise.all([t.ctx.jobs.drain(), t.ctx.jobs.drain()]);
    expect(fake.count('follow_up')).toBe(1);
    expect((await unansweredOf(t.ctx, id)).followUpCount).toBe(1);
  });
});

describe('the follow-up job and the next follow-up', () => {
  it('commits a follow-up with its count: failing in between, the job run again sends it once', async () => {
    const id = await answeredConversation();
    await makeFollowUpDue(t.ctx, id);
    // The count fails after the follow-up is written (the database refuses it, as a process killed there would
    // never write it).
    const refuse = sql.raw(`refuse_follow_up_count_${id}`);
    await t.ctx.db.execute(sql`create function ${refuse}() returns trigger language plpgsql as $$
      begin raise exception 'killed while counting the follow-up'; end $$`);
    await t.ctx.db.execute(sql`create trigger ${refuse} before update on unanswered_conversations for each row
      when (new.follow_up_count > old.follow_up_count and new.conversation_id = ${sql.raw(String(id))}) execute function ${refuse}()`);
    try {
      await t.ctx.jobs.drain();
    } finally {
      await t.ctx.db.execute(sql`drop trigger ${refuse} on unanswered_conversations`);
      await t.ctx.db.execute(sql`drop function ${refuse}()`);
    }
    expect(fake.count('follow_up')).toBe(1);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply']);
    expect(await outboxOf(t.ctx, id)).toHaveLength(1);
    const [retry] = await pendingJobs(t.ctx, `follow-up:${id}`);
    expect(retry).toMatchObject({ attempts: 1, lastError: expect.stringContaining('killed while counting the follow-up') });

    // The backoff has passed (made due now instead of waiting): the retry sends the follow-up, once.
    await t.ctx.db.update(jobs).set({ runAt: new Date(0) }).where(eq(jobs.id, retry.id));
    await t.ctx.jobs.drain();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply', 'Fake follow-up']);
    expect((await unansweredOf(t.ctx, id)).followUpCount).toBe(1);
  });

  it('a follow-up failing its checking prompt hands over (-2) with the CRM needsHuman write-back in one transaction', async () => {
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 2 } }, checkingPrompt: 'Never be pushy.' });
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    const id = conversation.id;
    await t.ctx.db.update(conversations).set({ crmContactId: `ct-follow-up-${id}` }).where(eq(conversations.id, id));
    await receiveProspectMessage(t.ctx, id, 'tell me more');
    await t.ctx.jobs.drain();
    await makeFollowUpDue(t.ctx, id);
    fake.on('guard_check', { json: { pass: false, reason: 'too pushy' } });
    const writeBacks = () => reportedOutcomes(t.ctx, id);

    // Claimed as the runner claims it; the process dies as it queues the write-back.
    const [queued] = await pendingJobs(t.ctx, `follow-up:${id}`);
    await claimLikeTheRunner(t.ctx, queued.id);
    const dying = runnerKilledOnEnqueue(t.ctx, ANALYSIS_JOB, 'killed while queueing the CRM write-back');
    const claim = { id: queued.id, name: FOLLOW_UP_JOB, attempts: 1, maxAttempts: 5 };
    await expect(followUpJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow('killed while queueing the CRM write-back');
    // Nothing of the hand-over is stored without its write-back.
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);
    expect((await unansweredOf(t.ctx, id)).errors).toBe('[]');
    expect(await writeBacks()).toEqual([]);

    // Its lease runs out (the test lets that time pass) and the runner runs it again.
    await expireLease(t.ctx, queued.id);
    await t.ctx.jobs.drain();
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)).toEqual([expect.objectContaining({ code: 'GUARD_FAILED' })]);
    expect(await writeBacks()).toEqual(['needsHuman']);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply']);
  });

  it('a follow-up failing its checking prompt after a person pressed Take over hands nothing over: no -2, no CRM note', async () => {
    const type = await buildPlaybook(t.ctx, { config: { followUp: { delaysMinutes: [30], max: 2 } }, checkingPrompt: 'Never be pushy.' });
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    const id = conversation.id;
    await t.ctx.db.update(conversations).set({ crmContactId: `ct-follow-up-paused-${id}` }).where(eq(conversations.id, id));
    await receiveProspectMessage(t.ctx, id, 'tell me more');
    await t.ctx.jobs.drain();
    await makeFollowUpDue(t.ctx, id);
    fake.on('guard_check', async () => {
      await t.ctx.db.update(conversations).set({ aiPaused: true }).where(eq(conversations.id, id));
      return { json: { pass: false, reason: 'too pushy' } };
    });
    await t.ctx.jobs.drain();
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 0, aiPaused: true });
    expect(await reportedOutcomes(t.ctx, id)).toEqual([]);
    expect((await unansweredOf(t.ctx, id)).errors).toBe('[]');
  });

  it("a person's reply closes the pending follow-up entry of the unanswered list", async () => {
    const id = await answeredConversation();
    expect(await unansweredOf(t.ctx, id)).toMatchObject({ status: 'ACTIVE', followUpCount: 0 });
    await sendHumanMessage(t.ctx, id, 'A person answers.', { id: 1, email: 'admin@example.com', role: 'ADMIN' });
    expect(await unansweredOf(t.ctx, id)).toBeUndefined();
    expect(await pendingJobs(t.ctx, `follow-up:${id}`)).toEqual([]);
  });

  it('frees its key and schedules the next follow-up in one transaction: killed in between, the job runs again and the silence keeps its follow-ups', async () => {
    const id = await answeredConversation();
    await makeFollowUpDue(t.ctx, id);
    // Claimed as the runner claims it.
    const [queued] = await pendingJobs(t.ctx, `follow-up:${id}`);
    await claimLikeTheRunner(t.ctx, queued.id);
    // The process dies as it schedules the next follow-up, after this one was sent and counted.
    const dying = runnerKilledOnEnqueue(t.ctx, FOLLOW_UP_JOB, 'killed while scheduling the next follow-up');
    const claim = { id: queued.id, name: FOLLOW_UP_JOB, attempts: 1, maxAttempts: 5 };
    await expect(followUpJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow(
      'killed while scheduling the next follow-up',
    );
    expect((await unansweredOf(t.ctx, id)).followUpCount).toBe(1);
    // Still claimed, not done with nothing scheduled after it.
    const [job] = await t.ctx.db.select().from(jobs).where(eq(jobs.id, queued.id));
    expect(job.status).toBe('running');

    // Its lease runs out (the test lets that time pass) and the runner runs it again: the second follow-up is
    // not due yet, so the job sends nothing and schedules it.
    await expireLease(t.ctx, queued.id);
    await t.ctx.jobs.drain();
    expect(fake.count('follow_up')).toBe(1);
    const entry = await unansweredOf(t.ctx, id);
    const [next] = await pendingJobs(t.ctx, `follow-up:${id}`);
    expect(next.runAt.getTime()).toBe(entry.earliestReplyDateTime.getTime());
    expect(minutesFromNow(next.runAt)).toBeGreaterThan(119);

    // The silence's second follow-up goes out when due.
    await makeFollowUpDue(t.ctx, id);
    await t.ctx.jobs.drain();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Fake reply', 'Fake follow-up', 'Fake follow-up']);
    expect((await unansweredOf(t.ctx, id)).followUpCount).toBe(2);
  });
});

describe('triggerFollowUp (the admin\'s button)', () => {
  it('sends one now, counts it, and answers the notice', async () => {
    const id = await answeredConversation();
    await expect(triggerFollowUp(t.ctx, id)).resolves.toEqual({ message: 'Follow-up sent' });
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake follow-up');
    expect((await unansweredOf(t.ctx, id)).followUpCount).toBe(1);
    expect(await pendingJobs(t.ctx, `follow-up:${id}`)).toHaveLength(1);
  });

  it('refuses with 409 outside a working phase, 409 while paused, 404 for an unknown conversation', async () => {
    const id = await answeredConversation();
    await setConversationPhase(t.ctx, id, -2);
    await expect(triggerFollowUp(t.ctx, id)).rejects.toMatchObject({ status: 409, code: 'NOT_WORKING_PHASE' });
    await expect(triggerFollowUp(t.ctx, 999_999)).rejects.toMatchObject({ status: 404 });
    await expect(triggerFollowUp(t.ctx, id)).rejects.toBeInstanceOf(AppError);
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);

    const paused = await answeredConversation();
    await sendHumanMessage(t.ctx, paused, 'A person here.', { id: 1, email: 'a@example.com', role: 'ADMIN' });
    await expect(triggerFollowUp(t.ctx, paused)).rejects.toMatchObject({ status: 409, code: 'AI_PAUSED' });
    expect(fake.count('follow_up')).toBe(0);
  });

  it('answers 502 and records the error when the LLM fails', async () => {
    const id = await answeredConversation();
    fake.on('follow_up', { status: 400, body: { error: { message: 'bad model', type: 'invalid_request_error', code: 'model_not_found' } } });
    await expect(triggerFollowUp(t.ctx, id)).rejects.toMatchObject({ status: 502, code: 'LLM_FAILED' });
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)[0]).toMatchObject({ status: 400, code: 'model_not_found' });
  });
});
