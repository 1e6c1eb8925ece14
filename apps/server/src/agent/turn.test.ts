import { eq, like, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { conversations, jobs, llmUsage } from '../db/schema/index.ts';
import { agentMessagesOf, buildPlaybook, buildProspectConversation, conversationRow, outboxOf, pendingJobs, unansweredOf } from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { claimLikeTheRunner, expireLease, runnerKilledOnEnqueue } from '../test/job-scenarios.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import { receiveProspectMessage, sendHumanMessage, setConversationPhase, startWebConversation } from './agent.service.ts';
import { ANALYSIS_JOB } from '../conversations/conversation-outcome.ts';
import { FOLLOW_UP_JOB } from './follow-up.ts';
import { TURN_JOB, turnJob } from './turn.job.ts';

const fake = useFake(new OpenAiFake());
const t = useTestApp({ env: () => fake.env({ LLM_MAX_RETRIES: '1' }) });
beforeEach(() => fake.reset());

/**
 * The first draft is written while the prospect sends "actually, make it red" (that draft is stale); every
 * later draft answers the newest message: "Red it is (…)".
 */
function prospectChangesMindMidTurn(id: number) {
  let first = true;
  fake.on('draft_reply', async (request) => {
    if (first) {
      first = false;
      await receiveProspectMessage(t.ctx, id, 'actually, make it red');
      return { json: { reply: 'STALE draft about widgets', needsHuman: false, reason: '' } };
    }
    return { json: { reply: `Red it is (${request.messages.at(-1)!.content})`, needsHuman: false, reason: '' } };
  });
}

async function webChat(seed: Parameters<typeof buildPlaybook>[1] = {}) {
  const type = await buildPlaybook(t.ctx, seed);
  const { id } = await startWebConversation(t.ctx, type.id);
  return id;
}

async function say(id: number, text: string) {
  await receiveProspectMessage(t.ctx, id, text);
  await t.ctx.jobs.drain();
}

describe('a turn', () => {
  it('stays in the phase when the transition condition is not met, and replies', async () => {
    const id = await webChat();
    fake.on('draft_reply', { json: { reply: 'What do you need widgets for?', needsHuman: false, reason: '' } });
    await say(id, '  hello  ');
    const row = await conversationRow(t.ctx, id);
    expect(row.phase).toBe(0);
    expect(row.resumePhase).toBeNull();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'What do you need widgets for?']);
    expect(row.messagesCount).toBe(3);
    expect(fake.requests.map((r) => r.schemaName)).toEqual(['transition_decision', 'draft_reply']);
    // The draft is a chat: role prompt and phase goal as system, the prospect as user.
    const draft = fake.requests[1];
    expect(draft.messages[0].content).toContain('You are Sam, who sells widgets.');
    expect(draft.messages[0].content).toContain('Goal 0: learn what the prospect needs.');
    expect(draft.messages.at(-1)).toEqual({ role: 'user', content: 'hello' });
    expect(draft.authorization).toBe('Bearer sk-test-fake');
  });

  it('advances one phase when the transition condition is met and drafts for the new phase', async () => {
    const id = await webChat();
    fake.on('transition_decision', { json: { advance: true, reason: 'answered' } });
    await say(id, 'I need 10 widgets');
    expect((await conversationRow(t.ctx, id)).phase).toBe(1);
    expect(fake.requests[1].messages[0].content).toContain('Goal 1:');
    expect(fake.requests[0].messages[0].content).toContain('The prospect answered question 0.');
  });

  it('ends the conversation at phase N with a closing reply that confirms the next step, and rates it (issue 24)', async () => {
    const id = await webChat({ phases: 2 });
    fake.on('transition_decision', { json: { advance: true, reason: 'yes' } });
    fake.on('conversation_rating', { json: { rating: 9, reason: 'closed the sale' } });
    await say(id, 'first');
    fake.on('draft_reply', { json: { reply: 'Booked: Friday at 10. You will get the invite today.', needsHuman: false, reason: '' } });
    await say(id, 'Can we book a demo on Friday at 10?');
    const row = await conversationRow(t.ctx, id);
    expect(row.phase).toBe(2);
    expect(row.rating).toBe(9);
    const agent = await agentMessagesOf(t.ctx, id);
    expect(agent).toHaveLength(3); // initial + the phase-1 reply + the closing reply
    expect(agent.at(-1)).toBe('Booked: Friday at 10. You will get the invite today.');
    // An ended conversation gets no further turn.
    await say(id, 'are you there?');
    expect(await agentMessagesOf(t.ctx, id)).toHaveLength(3);
    expect(fake.count('conversation_rating')).toBe(1);
  });

  it('flags the conversation for a person when the last message asks for what the agent cannot do (issue 24)', async () => {
    const id = await webChat({ phases: 1 });
    fake.on('transition_decision', { json: { advance: true, reason: 'yes' } });
    fake.on('draft_reply', { json: { reply: 'A colleague will get back to you about the refund.', needsHuman: true, reason: 'refund request' } });
    await say(id, 'I want a refund of my last invoice');
    const row = await conversationRow(t.ctx, id);
    expect(row.phase).toBe(-2);
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('A colleague will get back to you about the refund.');
  });

  it('books tokens and cost per call on the conversation', async () => {
    const id = await webChat();
    fake.on('draft_reply', { json: { reply: 'ok', needsHuman: false, reason: '' }, usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    await say(id, 'price?');
    const usage = await t.ctx.db.select().from(llmUsage).where(eq(llmUsage.conversationId, id)).orderBy(llmUsage.id);
    expect(usage.map((u) => [u.purpose, u.model, u.promptTokens, u.completionTokens])).toEqual([
      ['transition', 'gpt-4o-mini-2024-07-18', 100, 20],
      ['draft', 'gpt-4o-mini-2024-07-18', 1000, 500],
    ]);
    const row = await conversationRow(t.ctx, id);
    expect(row.promptTokens).toBe(1100);
    expect(row.completionTokens).toBe(520);
    // gpt-4o-mini: $0.15 / $0.60 per million tokens.
    expect(row.costUsd).toBeCloseTo((1100 * 0.15 + 520 * 0.6) / 1e6, 12);
  });

  it('uses the model and temperature of the type config', async () => {
    const id = await webChat({ config: { model: 'gpt-4.1-mini', temperature: 0.2 } });
    await say(id, 'hi');
    expect(fake.requests.map((r) => [r.model, r.temperature])).toEqual([
      ['gpt-4.1-mini', 0],
      ['gpt-4.1-mini', 0.2],
    ]);
  });
});

describe('inbound conversations and the trigger prompt', () => {
  it('ignores a conversation the trigger says no to (9999), without a reply', async () => {
    const type = await buildPlaybook(t.ctx, { triggerConversationPrompt: 'Only people asking about widgets.' });
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    fake.on('trigger_decision', { json: { engage: false, reason: 'spam' } });
    await say(conversation.id, 'buy crypto now');
    expect((await conversationRow(t.ctx, conversation.id)).phase).toBe(9999);
    expect(await agentMessagesOf(t.ctx, conversation.id)).toEqual([]);
    expect(fake.requests.map((r) => r.schemaName)).toEqual(['trigger_decision']);
    expect(fake.requests[0].messages[0].content).toContain('Only people asking about widgets.');
  });

  it('engages when the trigger says yes, asks it only on the first message, and queues the reply in the outbox', async () => {
    const type = await buildPlaybook(t.ctx, { triggerConversationPrompt: 'Only people asking about widgets.' });
    const { conversation, prospect, account } = await buildProspectConversation(t.ctx, type.id);
    fake.on('draft_reply', { json: { reply: 'Happy to help with widgets!', needsHuman: false, reason: '' } });
    await say(conversation.id, 'do you sell widgets?');
    await say(conversation.id, 'blue ones');
    expect(fake.count('trigger_decision')).toBe(1);
    expect(await agentMessagesOf(t.ctx, conversation.id)).toEqual(['Happy to help with widgets!', 'Happy to help with widgets!']);
    const queued = await outboxOf(t.ctx, conversation.id);
    expect(queued).toHaveLength(2);
    expect(queued[0]).toMatchObject({ status: 'PENDING', channel: 'INSTAGRAM', messagingAccountId: account.id });
    expect(queued[0].payload).toMatchObject({ text: 'Happy to help with widgets!', recipientId: prospect.externalId });
  });
});

describe('the checking prompt', () => {
  it('regenerates a failing draft once with the reason, and sends the passing one', async () => {
    const id = await webChat({ checkingPrompt: 'Never promise discounts.' });
    fake.once('draft_reply', { json: { reply: 'You get 50% off!', needsHuman: false, reason: '' } });
    fake.on('draft_reply', { json: { reply: 'Our price is fair.', needsHuman: false, reason: '' } });
    fake.once('guard_check', { json: { pass: false, reason: 'promises a discount' } });
    await say(id, 'discount?');
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Our price is fair.']);
    const retry = fake.requests.filter((r) => r.schemaName === 'draft_reply')[1];
    expect(retry.messages[0].content).toContain('promises a discount');
    expect(fake.requests.find((r) => r.schemaName === 'guard_check')!.messages[0].content).toContain('Never promise discounts.');
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);
  });

  it('sends nothing and asks for a human (-2) when the draft fails twice', async () => {
    const id = await webChat({ checkingPrompt: 'Never promise discounts.' });
    fake.on('draft_reply', { json: { reply: 'Discounts for all!', needsHuman: false, reason: '' } });
    fake.on('guard_check', { json: { pass: false, reason: 'promises a discount' } });
    await say(id, 'discount?');
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?']);
    expect(fake.count('draft_reply')).toBe(2);
    const entry = await unansweredOf(t.ctx, id);
    expect(JSON.parse(entry.errors)[0]).toMatchObject({ code: 'GUARD_FAILED', message: expect.stringContaining('promises a discount') });
    // The agent replies only in working phases.
    await say(id, 'hello?');
    expect(fake.count('draft_reply')).toBe(2);
  });

  it('hands over to a human (-2) when the draft asks for one, after the holding message', async () => {
    const id = await webChat();
    fake.on('draft_reply', { json: { reply: 'Let me get a colleague.', needsHuman: true, reason: 'asks for the manager' } });
    await say(id, 'I want to talk to your manager');
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect(await agentMessagesOf(t.ctx, id)).toContain('Let me get a colleague.');
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)[0]).toMatchObject({ code: 'HUMAN_REQUESTED' });
  });
});

describe('LLM failures', () => {
  it('answers with the errorPrompt after retries of a 500, sets -1 and records the error', async () => {
    const id = await webChat({ errorPrompt: 'Sorry, we will write back soon.' });
    fake.on('*', { status: 500, body: { error: { message: 'upstream exploded', type: 'server_error', code: 'boom' } } });
    await say(id, 'hello');
    const row = await conversationRow(t.ctx, id);
    expect(row.phase).toBe(-1);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Sorry, we will write back soon.']);
    expect(fake.requests).toHaveLength(2); // the first attempt and LLM_MAX_RETRIES=1 retry
    const [error] = JSON.parse((await unansweredOf(t.ctx, id)).errors);
    expect(error).toMatchObject({
      status: 500,
      type: 'server_error',
      code: 'boom',
      method: 'POST',
      url: `${fake.baseUrl}/chat/completions`,
      response: expect.stringContaining('upstream exploded'),
    });
    expect(Object.keys(error)).toEqual(expect.arrayContaining(['message', 'type', 'code', 'status', 'method', 'url', 'response', 'details']));
  });

  it('retries a 429 and goes on when the retry succeeds', async () => {
    const id = await webChat();
    fake.once('transition_decision', { status: 429 });
    await say(id, 'hello');
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Fake reply']);
    expect(fake.count('transition_decision')).toBe(2);
  });

  it('treats an answer that is not the JSON asked for as a failure', async () => {
    const id = await webChat();
    fake.on('transition_decision', { content: 'Sure! I think we should advance.' });
    await say(id, 'hello');
    expect((await conversationRow(t.ctx, id)).phase).toBe(-1);
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)[0]).toMatchObject({ type: 'invalid_response', status: 200 });
  });
});

describe('debounce and concurrency within a turn', () => {
  it('answers a burst of three messages once, waiting at -3 with the phase kept', async () => {
    const id = await webChat();
    await setConversationPhase(t.ctx, id, 1);
    for (const text of ['hi', 'I want', 'widgets']) await receiveProspectMessage(t.ctx, id, text);
    const waiting = await conversationRow(t.ctx, id);
    expect(waiting.phase).toBe(-3);
    expect(waiting.resumePhase).toBe(1);
    await t.ctx.jobs.drain();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Fake reply']);
    expect(fake.count('draft_reply')).toBe(1);
    expect(fake.requests[1].messages.slice(-3).map((m) => m.content)).toEqual(['hi', 'I want', 'widgets']);
    expect((await conversationRow(t.ctx, id)).phase).toBe(1);
  });

  it('drops the stale draft when a message lands mid-turn and answers in a new turn', async () => {
    const id = await webChat();
    prospectChangesMindMidTurn(id);
    await say(id, 'I want a widget');
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Red it is (actually, make it red)']);
    expect(fake.count('draft_reply')).toBe(2);
    const row = await conversationRow(t.ctx, id);
    expect(row.phase).toBe(0);
    expect(row.messagesCount).toBe(4);
  });

  it('waits for the configured debounce before answering', async () => {
    const id = await webChat({ config: { replyDebounceSeconds: 60 } });
    await receiveProspectMessage(t.ctx, id, 'hello');
    await t.ctx.jobs.drain();
    expect(fake.requests).toHaveLength(0);
    expect((await conversationRow(t.ctx, id)).phase).toBe(-3);
  });
});

describe('the turn job and the next turn (docs/agent.md, Concurrency 4)', () => {
  it('frees its key and queues the next turn in one transaction: killed in between, the job runs again and the mid-turn message is answered', async () => {
    const id = await webChat();
    // The message lands while the turn runs: -3, but its own turn cannot be queued (the running turn holds the key).
    prospectChangesMindMidTurn(id);
    await receiveProspectMessage(t.ctx, id, 'I want a widget');
    // Claimed as the runner claims it.
    const [queued] = await pendingJobs(t.ctx, `turn:${id}`);
    await claimLikeTheRunner(t.ctx, queued.id);
    // The process dies as it queues the next turn, after the turn itself ran.
    const dying = runnerKilledOnEnqueue(t.ctx, TURN_JOB, 'killed while queueing the next turn');
    const claim = { id: queued.id, name: TURN_JOB, attempts: 1, maxAttempts: 10 };
    await expect(turnJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow('killed while queueing the next turn');
    expect((await conversationRow(t.ctx, id)).phase).toBe(-3);
    const [job] = await t.ctx.db.select().from(jobs).where(eq(jobs.id, queued.id));
    expect(job.status).toBe('running');

    // Its lease runs out (the test lets that time pass) and the runner runs it again.
    await expireLease(t.ctx, queued.id);
    await t.ctx.jobs.drain();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Red it is (actually, make it red)']);
    expect(await pendingJobs(t.ctx, `turn:${id}`)).toHaveLength(0);
  });
});

describe('the reply and its silence', () => {
  it('commits the reply with the silence it starts and its first follow-up: killed in between, the turn runs again and the silence gets its follow-up', async () => {
    const id = await webChat();
    await receiveProspectMessage(t.ctx, id, 'I want a widget');
    const [queued] = await pendingJobs(t.ctx, `turn:${id}`);
    await claimLikeTheRunner(t.ctx, queued.id);
    // The process dies as it schedules the silence's first follow-up.
    const dying = runnerKilledOnEnqueue(t.ctx, FOLLOW_UP_JOB, 'killed while scheduling the follow-up');
    const claim = { id: queued.id, name: TURN_JOB, attempts: 1, maxAttempts: 10 };
    await expect(turnJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow('killed while scheduling the follow-up');
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?']);
    expect(await unansweredOf(t.ctx, id)).toBeUndefined();

    // Its lease runs out (the test lets that time pass) and the runner runs it again.
    await expireLease(t.ctx, queued.id);
    await t.ctx.jobs.drain();
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Fake reply']);
    const entry = await unansweredOf(t.ctx, id);
    expect(entry).toMatchObject({ status: 'ACTIVE', followUpCount: 0 });
    const [followUp] = await pendingJobs(t.ctx, `follow-up:${id}`);
    expect(followUp.runAt.getTime()).toBe(entry.earliestReplyDateTime.getTime());
  });
});

describe('the CRM write-back commits with the phase it reports (docs/crm.md)', () => {
  /** A web chat started for a CRM contact, as the Call button starts one. */
  async function contactChat(seed: Parameters<typeof buildPlaybook>[1] = {}) {
    const id = await webChat(seed);
    await t.ctx.db.update(conversations).set({ crmContactId: `ct-turn-${id}` }).where(eq(conversations.id, id));
    return id;
  }

  /** Every write-back job of the conversation, done or not (the test app's types have no CRM credentials). */
  const writeBacks = (id: number) => t.ctx.db.select().from(jobs).where(like(jobs.singletonKey, `analysis:${id}:%`));

  /**
   * Runs the conversation's queued turn as the runner does, in a process that dies as it queues the CRM
   * write-back; then its lease runs out (the test lets that time pass) and the runner runs the job again.
   */
  async function killedAtTheWriteBackThenRunAgain(id: number, whileDead: () => Promise<void>) {
    const [queued] = await pendingJobs(t.ctx, `turn:${id}`);
    await claimLikeTheRunner(t.ctx, queued.id);
    const dying = runnerKilledOnEnqueue(t.ctx, ANALYSIS_JOB, 'killed while queueing the CRM write-back');
    const claim = { id: queued.id, name: TURN_JOB, attempts: 1, maxAttempts: 10 };
    await expect(turnJob.handler({ ...t.ctx, jobs: dying }, { conversationId: id }, claim)).rejects.toThrow('killed while queueing the CRM write-back');
    // Nothing of the outcome is stored without its write-back.
    expect(await writeBacks(id)).toEqual([]);
    await whileDead();
    await expireLease(t.ctx, queued.id);
    await t.ctx.jobs.drain();
  }

  const queuedOutcomes = async (id: number) => (await writeBacks(id)).map((job) => (job.payload as { ended: string }).ended);

  it('ended (phase N): the end, its rating and the write-back commit together', async () => {
    const id = await contactChat({ phases: 2 });
    await setConversationPhase(t.ctx, id, 1);
    fake.on('transition_decision', { json: { advance: true, reason: 'booked' } });
    fake.on('conversation_rating', { json: { rating: 7, reason: 'booked a call' } });
    await receiveProspectMessage(t.ctx, id, 'Book me for Tuesday');
    await killedAtTheWriteBackThenRunAgain(id, async () => {
      expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 1, rating: null });
    });
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 2, rating: 7 });
    expect(await queuedOutcomes(id)).toEqual(['ended']);
  });

  it('needs a human (-2): the holding reply, the phase, the error and the write-back commit together', async () => {
    const id = await contactChat();
    fake.on('draft_reply', { json: { reply: 'Let me get a colleague.', needsHuman: true, reason: 'asks for the manager' } });
    await receiveProspectMessage(t.ctx, id, 'I want to talk to your manager');
    await killedAtTheWriteBackThenRunAgain(id, async () => {
      expect((await conversationRow(t.ctx, id)).phase).toBe(0);
      expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?']);
      expect(await unansweredOf(t.ctx, id)).toBeUndefined();
    });
    expect((await conversationRow(t.ctx, id)).phase).toBe(-2);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Let me get a colleague.']);
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)).toEqual([expect.objectContaining({ code: 'HUMAN_REQUESTED' })]);
    expect(await queuedOutcomes(id)).toEqual(['needsHuman']);
  });

  it('errored (-1): the apology, the phase, the error and the write-back commit together', async () => {
    const id = await contactChat({ errorPrompt: 'Sorry, we will write back soon.' });
    fake.on('*', { status: 500 });
    await receiveProspectMessage(t.ctx, id, 'hello');
    await killedAtTheWriteBackThenRunAgain(id, async () => {
      expect((await conversationRow(t.ctx, id)).phase).toBe(0);
      expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?']);
    });
    expect((await conversationRow(t.ctx, id)).phase).toBe(-1);
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?', 'Sorry, we will write back soon.']);
    expect(JSON.parse((await unansweredOf(t.ctx, id)).errors)).toEqual([expect.objectContaining({ status: 500 })]);
    expect(await queuedOutcomes(id)).toEqual(['errored']);
  });

  it('tells the CRM nothing when an admin moved the conversation while the turn ran', async () => {
    const id = await contactChat({ errorPrompt: 'Sorry, we will write back soon.' });
    fake.on('*', async () => {
      await setConversationPhase(t.ctx, id, 9999);
      return { status: 500 };
    });
    await say(id, 'hello');
    expect((await conversationRow(t.ctx, id)).phase).toBe(9999);
    // No apology either: the conversation is no longer the agent's.
    expect(await agentMessagesOf(t.ctx, id)).toEqual(['Hi! Interested in widgets?']);
    expect(await writeBacks(id)).toEqual([]);
  });
});

describe('human takeover', () => {
  it('sends a person\'s message, pauses the AI, and resumes when a working phase is set', async () => {
    const type = await buildPlaybook(t.ctx);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    const id = conversation.id;
    await say(id, 'hello');
    const admin = { id: 1, email: 'admin@example.com', role: 'ADMIN' as const };
    const human = await sendHumanMessage(t.ctx, id, ' I am Alex, a real person. ', admin);
    expect(human.message).toBe('I am Alex, a real person.');
    expect((await conversationRow(t.ctx, id)).aiPaused).toBe(true);
    expect((await outboxOf(t.ctx, id)).map((o) => (o.payload as { text: string }).text)).toContain('I am Alex, a real person.');

    const before = fake.requests.length;
    await say(id, 'nice to meet you');
    expect(fake.requests.length).toBe(before);
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('I am Alex, a real person.');

    await setConversationPhase(t.ctx, id, 0);
    expect((await conversationRow(t.ctx, id)).aiPaused).toBe(false);
    await t.ctx.jobs.drain();
    expect((await agentMessagesOf(t.ctx, id)).at(-1)).toBe('Fake reply');
  });
});

describe('Take over wins over a turn that fails after it (issue 18 item 6)', () => {
  const writeBacks = (id: number) => t.ctx.db.select().from(jobs).where(like(jobs.singletonKey, `analysis:${id}:%`));
  /** A prospect conversation of a CRM contact; `pressTakeOver` pauses it as the Take over button does. */
  async function contactConversation(seed: Parameters<typeof buildPlaybook>[1] = {}) {
    const type = await buildPlaybook(t.ctx, seed);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    await t.ctx.db.update(conversations).set({ crmContactId: `ct-takeover-${conversation.id}` }).where(eq(conversations.id, conversation.id));
    return conversation.id;
  }
  const pressTakeOver = (id: number) => t.ctx.db.update(conversations).set({ aiPaused: true }).where(eq(conversations.id, id));

  it('an LLM failure after Take over: no -1, no apology, no errored note to the CRM, no error entry', async () => {
    const id = await contactConversation({ errorPrompt: 'Sorry, we will write back soon.' });
    fake.on('*', async () => {
      await pressTakeOver(id);
      return { status: 500 };
    });
    await say(id, 'hello');
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 0, aiPaused: true });
    expect(await agentMessagesOf(t.ctx, id)).not.toContain('Sorry, we will write back soon.');
    expect(await writeBacks(id)).toEqual([]);
    expect(await unansweredOf(t.ctx, id)).toBeUndefined();
  });

  it('a draft asking for a human after Take over: no -2 and no needs-human note', async () => {
    const id = await contactConversation();
    fake.on('draft_reply', async () => {
      await pressTakeOver(id);
      return { json: { reply: '', needsHuman: true, reason: 'asks for the manager' } };
    });
    await say(id, 'I want your manager');
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 0, aiPaused: true });
    expect(await writeBacks(id)).toEqual([]);
  });
});
