import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations } from '../db/schema/index.ts';
import { buildPlaybook, buildProspectConversation, conversationRow, messagesOf, pendingJobs } from '../test/agent-factories.ts';
import { useFake, useTestApp } from '../test/use-test-app.ts';
import { OpenAiFake } from '../test/fakes/openai-fake.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { receiveProspectMessage, sendHumanMessage, setConversationPhase, startWebConversation } from './agent.service.ts';

const fake = useFake(new OpenAiFake());
const admin = { id: 1, email: 'admin@example.com', role: 'ADMIN' as const };
const t = useTestApp({ env: () => fake.env() });

describe('startWebConversation', () => {
  it('creates a phase-0 conversation with the initial message as AGENT and correct counters', async () => {
    const type = await buildPlaybook(t.ctx);
    const { id, uuid } = await startWebConversation(t.ctx, type.id);
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    const row = await conversationRow(t.ctx, id);
    expect(row).toMatchObject({ phase: 0, conversationTypeId: type.id, prospectId: null, messagesCount: 1 });
    expect(row.lastMessageDate).toBeInstanceOf(Date);
    expect(await messagesOf(t.ctx, id)).toEqual([expect.objectContaining({ role: 'AGENT', message: 'Hi! Interested in widgets?' })]);
  });

  it('stores no message when the type has no initial message', async () => {
    const type = await buildPlaybook(t.ctx, { initialMessage: '  ' });
    const { id } = await startWebConversation(t.ctx, type.id);
    expect((await conversationRow(t.ctx, id)).messagesCount).toBe(0);
  });

  it('answers 404 for an unknown type', async () => {
    await expect(startWebConversation(t.ctx, 987_654)).rejects.toMatchObject({ status: 404, code: 'CONVERSATION_TYPE_NOT_FOUND' });
  });
});

describe('receiveProspectMessage', () => {
  it('stores trimmed text, counts it, emits a change and schedules one turn', async () => {
    const type = await buildPlaybook(t.ctx, { config: { replyDebounceSeconds: 30 } });
    const { id, uuid } = await startWebConversation(t.ctx, type.id);
    const events: unknown[] = [];
    const off = t.ctx.events.on('conversation.changed', (e) => events.push(e));
    const later = new Date(Date.now() + 60_000);
    const stored = await receiveProspectMessage(t.ctx, id, '  hello  ', { dateSent: later });
    off();
    expect(stored).toMatchObject({ role: 'PROSPECT', message: 'hello', conversationId: id });
    const row = await conversationRow(t.ctx, id);
    expect(row.messagesCount).toBe(2);
    expect(row.lastMessageDate!.getTime()).toBe(later.getTime());
    expect(events).toContainEqual({ conversationId: id, uuid });
    const [turn] = await pendingJobs(t.ctx, `turn:${id}`);
    expect(turn.runAt.getTime() - Date.now()).toBeGreaterThan(25_000);
  });

  it('commits the turn with the message: a process killed right after the commit leaves the message answered', async () => {
    const type = await buildPlaybook(t.ctx, { config: { replyDebounceSeconds: 30 } });
    const { id } = await startWebConversation(t.ctx, type.id);
    // The process "dies" right after the message's transaction: every enqueue outside a transaction fails.
    const dying = Object.create(t.ctx.jobs) as JobRunner;
    dying.enqueue = (name, payload, options = {}) =>
      options.executor ? t.ctx.jobs.enqueue(name, payload, options) : Promise.reject(new Error('killed after the commit'));
    await expect(receiveProspectMessage({ ...t.ctx, jobs: dying }, id, 'anyone there?')).rejects.toThrow('killed after the commit');
    expect((await messagesOf(t.ctx, id)).map((m) => m.message)).toContain('anyone there?');
    expect((await conversationRow(t.ctx, id)).phase).toBe(-3);
    const turns = await pendingJobs(t.ctx, `turn:${id}`);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ name: 'agent.turn', payload: { conversationId: id } });
  });

  it('stores neither the message nor its turn when the turn cannot be queued', async () => {
    const type = await buildPlaybook(t.ctx);
    const { id } = await startWebConversation(t.ctx, type.id);
    const broken = Object.create(t.ctx.jobs) as JobRunner;
    broken.enqueue = () => Promise.reject(new Error('jobs table unavailable'));
    await expect(receiveProspectMessage({ ...t.ctx, jobs: broken }, id, 'hello?')).rejects.toThrow('jobs table unavailable');
    expect((await messagesOf(t.ctx, id)).map((m) => m.message)).not.toContain('hello?');
    expect((await conversationRow(t.ctx, id)).phase).toBe(0);
    expect(await pendingJobs(t.ctx, `turn:${id}`)).toHaveLength(0);
  });

  it('ignores a redelivered channel message (same externalId) and answers null', async () => {
    const type = await buildPlaybook(t.ctx);
    const { conversation } = await buildProspectConversation(t.ctx, type.id);
    expect(await receiveProspectMessage(t.ctx, conversation.id, 'hi', { externalId: 'mid.1' })).not.toBeNull();
    expect(await receiveProspectMessage(t.ctx, conversation.id, 'hi', { externalId: 'mid.1' })).toBeNull();
    expect((await messagesOf(t.ctx, conversation.id)).length).toBe(1);
    expect((await conversationRow(t.ctx, conversation.id)).messagesCount).toBe(1);
  });

  it('refuses empty text with 400 and an unknown conversation with 404', async () => {
    const type = await buildPlaybook(t.ctx);
    const { id } = await startWebConversation(t.ctx, type.id);
    await expect(receiveProspectMessage(t.ctx, id, '   ')).rejects.toMatchObject({ status: 400, code: 'EMPTY_MESSAGE' });
    await expect(receiveProspectMessage(t.ctx, 987_654, 'hi')).rejects.toMatchObject({ status: 404 });
  });
});

describe('sendHumanMessage', () => {
  it('stores a web-chat message as AGENT written by a human without pausing (no prospect to pause for)', async () => {
    const type = await buildPlaybook(t.ctx);
    const { id } = await startWebConversation(t.ctx, type.id);
    await sendHumanMessage(t.ctx, id, 'Hello from a person', admin);
    expect((await messagesOf(t.ctx, id)).at(-1)).toMatchObject({ role: 'AGENT', writtenByHuman: true });
    expect((await conversationRow(t.ctx, id)).aiPaused).toBe(false);
    await expect(sendHumanMessage(t.ctx, id, '', admin)).rejects.toMatchObject({ status: 400 });
    await expect(sendHumanMessage(t.ctx, 987_654, 'x', admin)).rejects.toMatchObject({ status: 404 });
  });
});

describe('setConversationPhase', () => {
  it('accepts every spec code and refuses others with 400', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    const { id } = await startWebConversation(t.ctx, type.id);
    for (const phase of [-2, -1, 0, 1, 2, 9999]) {
      await setConversationPhase(t.ctx, id, phase);
      expect((await conversationRow(t.ctx, id)).phase).toBe(phase);
    }
    for (const phase of [3, -4, 1.5, 10000]) {
      await expect(setConversationPhase(t.ctx, id, phase)).rejects.toMatchObject({ status: 400, code: 'INVALID_PHASE' });
    }
    await expect(setConversationPhase(t.ctx, 987_654, 0)).rejects.toMatchObject({ status: 404 });
  });

  it('-3 keeps the working phase to resume, and the turn restores it', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    const { id } = await startWebConversation(t.ctx, type.id);
    await setConversationPhase(t.ctx, id, 1);
    await setConversationPhase(t.ctx, id, -3);
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: -3, resumePhase: 1 });
    await t.ctx.jobs.drain();
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 1, resumePhase: null });
    // Nothing was unanswered: no reply.
    expect((await messagesOf(t.ctx, id)).map((m) => m.role)).toEqual(['AGENT']);
  });

  /** A job runner whose process "dies" right after a transaction commits: every enqueue outside one fails. */
  function dyingAfterCommit(): JobRunner {
    const dying = Object.create(t.ctx.jobs) as JobRunner;
    dying.enqueue = (name, payload, options = {}) =>
      options.executor ? t.ctx.jobs.enqueue(name, payload, options) : Promise.reject(new Error('killed after the commit'));
    return dying;
  }

  it('commits -3 with the turn that closes the window: a process killed right after the commit leaves the turn queued', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2, config: { replyDebounceSeconds: 30 } });
    const { id } = await startWebConversation(t.ctx, type.id);
    await expect(setConversationPhase({ ...t.ctx, jobs: dyingAfterCommit() }, id, -3)).rejects.toThrow('killed after the commit');
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: -3, resumePhase: 0 });
    const turns = await pendingJobs(t.ctx, `turn:${id}`);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ name: 'agent.turn', payload: { conversationId: id } });
    expect(turns[0].runAt.getTime() - Date.now()).toBeGreaterThan(25_000);
  });

  it('commits a working phase with the turn that answers an unanswered message', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    const { id } = await startWebConversation(t.ctx, type.id);
    await setConversationPhase(t.ctx, id, -2);
    // Outside the working phases a message waits for a person: stored, no turn.
    await receiveProspectMessage(t.ctx, id, 'is anyone there?');
    expect(await pendingJobs(t.ctx, `turn:${id}`)).toHaveLength(0);
    await expect(setConversationPhase({ ...t.ctx, jobs: dyingAfterCommit() }, id, 1)).rejects.toThrow('killed after the commit');
    expect((await conversationRow(t.ctx, id)).phase).toBe(1);
    expect(await pendingJobs(t.ctx, `turn:${id}`)).toHaveLength(1);
  });

  it('stores neither the phase nor its turn when the turn cannot be queued', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    const { id } = await startWebConversation(t.ctx, type.id);
    const broken = Object.create(t.ctx.jobs) as JobRunner;
    broken.enqueue = () => Promise.reject(new Error('jobs table unavailable'));
    await expect(setConversationPhase({ ...t.ctx, jobs: broken }, id, -3)).rejects.toThrow('jobs table unavailable');
    expect(await conversationRow(t.ctx, id)).toMatchObject({ phase: 0, resumePhase: null });
    expect(await pendingJobs(t.ctx, `turn:${id}`)).toHaveLength(0);
  });

  it('commits the end (phase N) of a CRM contact\'s conversation with its CRM write-back', async () => {
    const type = await buildPlaybook(t.ctx, { phases: 2 });
    const { id } = await startWebConversation(t.ctx, type.id);
    await t.ctx.db.update(conversations).set({ crmContactId: 'ct-phase-end' }).where(eq(conversations.id, id));
    await setConversationPhase({ ...t.ctx, jobs: dyingAfterCommit() }, id, 2);
    expect((await conversationRow(t.ctx, id)).phase).toBe(2);
    expect(await pendingJobs(t.ctx, `analysis:${id}:ended`)).toEqual([
      expect.objectContaining({ name: 'agent.analysis', payload: { conversationId: id, ended: 'ended' } }),
    ]);
  });
});
