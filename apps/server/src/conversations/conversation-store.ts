import {
  AGENT_CONFIG_DEFAULTS,
  readConversationTypeConfig,
} from '@sales-agent/shared/schemas/conversation-type-config';
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { DELIVER_JOB, deliverJobKey } from '../channels/delivery-keys.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { messageCreatedCtes } from '../lib/webhook-outbox.ts';
import {
  abTests,
  conversationPhases,
  conversations,
  conversationTypes,
  conversationTypeVersions,
  messages,
  messagingAccounts,
  outbox,
  prospects,
  unansweredConversations,
  users,
} from '../db/schema/index.ts';

import type { PlaybookSnapshot } from '../db/schema/versions.ts';

/** The database or an open transaction: both run the same queries. */
import type { Executor } from '../db/after-commit.ts';

export type { Executor };

/** A message as the domain hands it back once stored. */
export interface StoredMessage {
  id: number;
  conversationId: number;
  role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
  message: string;
  dateSent: Date;
}

/** One line of a conversation's transcript, as the agent's prompts read it. */
export interface HistoryMessage {
  role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
  message: string;
}

export type ConversationRow = typeof conversations.$inferSelect;

/** A conversation with everything a turn needs: its type, phases (by index) and prospect/account. */
export interface LoadedConversation {
  conversation: ConversationRow;
  type: typeof conversationTypes.$inferSelect | null;
  phases: PhaseRow[];
  prospect: { id: number; externalId: string; messagingAccountId: number; accountType: string; simulated: boolean } | null;
  /** The knowledge collections of the pinned version (issue 25); null when not pinned: the type's current links. */
  knowledgeCollectionIds?: number[] | null;
}

/** What a turn needs of a phase; `phases` are sorted by index (then id). */
export interface PhaseRow {
  id: number;
  index: number;
  prompt: string;
  transitionPrompt: string;
  followUpPrompt: string | null;
}

/** The type's phases as one JSON array, sorted by index (a subquery of the conversation's select). */
const phasesJson = sql<PhaseRow[] | string>`(
  select coalesce(json_agg(json_build_object('id', p.id, 'index', p.index, 'prompt', p.prompt,
    'transitionPrompt', p.transition_prompt, 'followUpPrompt', p.follow_up_prompt) order by p.index, p.id), '[]'::json)
  from ${conversationPhases} p where p.conversation_type_id = ${conversations.conversationTypeId})`;

/** json columns come back parsed from both drivers; a string is parsed here just in case. */
const fromJson = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/** The conversation with its type, prospect and phases; with `messages`, also the last ids and the history. */
function selectLoaded(db: Executor, conversationId: number, messagesWanted: { historyLimit: number } | null) {
  const ifWanted = <T>(query: SQL) => (messagesWanted ? sql<T>`${query}` : sql<T>`null`);
  return db
    .select({
      conversation: conversations,
      type: conversationTypes,
      prospect: {
        id: prospects.id,
        externalId: prospects.externalId,
        messagingAccountId: prospects.messagingAccountId,
        accountType: messagingAccounts.type,
        simulated: prospects.simulated,
      },
      phases: phasesJson,
      snapshot: conversationTypeVersions.snapshot,
      lastProspectId: ifWanted<string | number>(sql`(select coalesce(max(m.id), 0) from ${messages} m
        where m.conversation_id = ${conversations.id} and m.role = 'PROSPECT')`),
      lastAgentId: ifWanted<string | number>(sql`(select coalesce(max(m.id), 0) from ${messages} m
        where m.conversation_id = ${conversations.id} and m.role = 'AGENT')`),
      history: ifWanted<{ id: number | string; role: HistoryMessage['role']; message: string }[] | string>(sql`(
        select coalesce(json_agg(json_build_object('id', h.id, 'role', h.role, 'message', h.message) order by h.id), '[]'::json)
        -- A message the prospect deleted on their channel is read as such (issue 19), not as if current.
        from (select m.id, m.role,
                case when m.deleted_at is null then m.message else '(the prospect deleted this message) ' || m.message end as message
              from ${messages} m where m.conversation_id = ${conversations.id}
              order by m.id desc limit ${messagesWanted?.historyLimit ?? 0}) h)`),
    })
    .from(conversations)
    .leftJoin(conversationTypes, eq(conversationTypes.id, conversations.conversationTypeId))
    .leftJoin(prospects, eq(prospects.id, conversations.prospectId))
    .leftJoin(messagingAccounts, eq(messagingAccounts.id, prospects.messagingAccountId))
    // The published version the conversation is pinned to (issue 25); none: the type's draft rows.
    .leftJoin(
      conversationTypeVersions,
      and(eq(conversationTypeVersions.conversationTypeId, conversations.conversationTypeId), eq(conversationTypeVersions.version, conversations.typeVersion)),
    )
    .where(eq(conversations.id, conversationId))
    .limit(1);
}

function toLoaded(row: {
  conversation: ConversationRow;
  type: LoadedConversation['type'];
  prospect: { id: number | null; externalId: string | null; messagingAccountId: number | null; accountType: string | null; simulated: boolean | null } | null;
  phases: PhaseRow[] | string;
  snapshot?: PlaybookSnapshot | null;
}): LoadedConversation {
  const prospect = row.prospect?.id != null && row.prospect.accountType ? (row.prospect as LoadedConversation['prospect']) : null;
  if (row.type && row.snapshot) {
    // A pinned conversation runs on its version's playbook, whatever the draft says now (docs/playbook-versions.md).
    const { phases, knowledgeCollectionIds, ...fields } = row.snapshot;
    const pinnedPhases = phases.map((p, i) => ({ id: -(i + 1), ...p }));
    return { conversation: row.conversation, type: { ...row.type, ...fields }, phases: pinnedPhases, prospect, knowledgeCollectionIds: knowledgeCollectionIds ?? [] };
  }
  return { conversation: row.conversation, type: row.type, phases: row.type ? fromJson(row.phases) : [], prospect, knowledgeCollectionIds: null };
}

/**
 * The published version a new conversation of the type pins (its newest), as a subquery for the insert; null
 * while the type was never published, so it runs on the draft as before versions existed.
 */
export function currentTypeVersion(conversationTypeId: number | null | undefined): SQL<number | null> {
  if (conversationTypeId == null) return sql<null>`null`;
  return sql<number | null>`(select max(v.version) from ${conversationTypeVersions} v where v.conversation_type_id = ${conversationTypeId})`;
}

/**
 * What a new conversation of the type starts on, as subqueries for the insert (docs/analytics.md "A/B tests"):
 * while an A/B test of the type runs, version A or B (B when `random` < weightB) and the test and arm it records;
 * after a test stopped with a winner, the winner until a newer version is published; else currentTypeVersion.
 */
export function startingVersion(conversationTypeId: number | null | undefined, random = Math.random()): {
  typeVersion: SQL<number | null>;
  abTestId: SQL<number | null>;
  abArm: SQL<'A' | 'B' | null>;
} {
  if (conversationTypeId == null) return { typeVersion: sql<null>`null`, abTestId: sql<null>`null`, abArm: sql<null>`null` };
  const r = sql`${random}::float8`;
  const running = sql`from ${abTests} t where t.conversation_type_id = ${conversationTypeId} and t.stopped_at is null`;
  return {
    typeVersion: sql<number | null>`coalesce(
      (select case when t.stopped_at is null then (case when ${r} < t.weight_b then t.version_b else t.version_a end)
                   when t.winner = 'B' then t.version_b else t.version_a end
         from ${abTests} t
        where t.conversation_type_id = ${conversationTypeId}
          and (t.stopped_at is null or (t.winner is not null and not exists (
                select 1 from ${conversationTypeVersions} v where v.conversation_type_id = t.conversation_type_id and v.created_at > t.stopped_at)))
        order by t.id desc limit 1),
      ${currentTypeVersion(conversationTypeId)})`,
    abTestId: sql<number | null>`(select t.id ${running})`,
    abArm: sql<'A' | 'B' | null>`(select case when ${r} < t.weight_b then 'B' else 'A' end ${running})`,
  };
}

/** The conversation, its type, its phases and its prospect's account: one round trip. */
export async function loadConversation(ctx: AppContext, conversationId: number): Promise<LoadedConversation | null> {
  const [row] = await selectLoaded(ctx.db, conversationId, null);
  return row ? toLoaded(row) : null;
}

/** Everything drafting a reply needs, read in one statement (one snapshot). */
export interface ReplyContext extends LoadedConversation {
  /** Ids of the newest PROSPECT and AGENT messages (0 when none); the send re-checks them. */
  lastIds: { prospect: number; agent: number };
  /** The latest messages, oldest first. */
  history: (HistoryMessage & { id: number })[];
}

/**
 * loadConversation plus the newest message ids and the recent history, in one round trip (instead of
 * four): the conversation row, type, prospect, phases, last ids and history come from one snapshot.
 */
export async function loadReplyContext(ctx: AppContext, conversationId: number, historyLimit = 200): Promise<ReplyContext | null> {
  const [row] = await selectLoaded(ctx.db, conversationId, { historyLimit });
  if (!row) return null;
  return {
    ...toLoaded(row),
    lastIds: { prospect: Number(row.lastProspectId), agent: Number(row.lastAgentId) },
    history: fromJson(row.history).map((m) => ({ id: Number(m.id), role: m.role, message: m.message })),
  };
}

/** The effective agent settings of a type: its config JSON over AGENT_CONFIG_DEFAULTS. */
export function agentSettingsOf(ctx: AppContext, configText: string | null | undefined) {
  const config = readConversationTypeConfig(configText);
  return {
    debounceSeconds: config.replyDebounceSeconds ?? AGENT_CONFIG_DEFAULTS.replyDebounceSeconds,
    followUpDelaysMinutes: config.followUp?.delaysMinutes ?? [...AGENT_CONFIG_DEFAULTS.followUp.delaysMinutes],
    maxFollowUps: config.followUp?.max ?? AGENT_CONFIG_DEFAULTS.followUp.max,
    model: config.model ?? ctx.config.LLM_MODEL,
    temperature: config.temperature ?? AGENT_CONFIG_DEFAULTS.temperature,
  };
}
export type AgentSettings = ReturnType<typeof agentSettingsOf>;

/** Ids of the newest PROSPECT and AGENT messages (0 when none); a prospect id above the agent id is unanswered. */
export async function lastMessageIds(db: Executor, conversationId: number): Promise<{ prospect: number; agent: number }> {
  const result = await db.execute(sql`
    select coalesce(max(id) filter (where role = 'PROSPECT'), 0) as prospect,
           coalesce(max(id) filter (where role = 'AGENT'), 0) as agent
    from messages where conversation_id = ${conversationId}`);
  const row = (result as unknown as { rows: { prospect: string | number; agent: string | number }[] }).rows[0];
  return { prospect: Number(row?.prospect ?? 0), agent: Number(row?.agent ?? 0) };
}

export interface NewMessage {
  conversationId: number;
  role: 'SYSTEM' | 'PROSPECT' | 'AGENT';
  message: string;
  dateSent?: Date;
  externalId?: string;
  writtenByHuman?: boolean;
  /** The teammate who wrote it (writtenByHuman). */
  authorUserId?: number;
}

/** Conditions and side effects of insertMessage, all in its one statement. */
export interface InsertOptions {
  /**
   * Lock the conversation row in the same statement and insert only if it is not AI-paused and (when
   * given) still in this phase with this messagesCount. These conditions sit in the WHERE of the
   * `FOR UPDATE`, so PostgreSQL re-checks them on the newest row version after waiting for the lock: a
   * message (or a human's reply, which pauses the AI) committed while this statement waited has changed
   * messagesCount / phase / aiPaused in its own statement, and the reply is dropped.
   */
  lockFor?: { phase?: number; messagesCount?: number };
  /** Insert only if the newest PROSPECT / AGENT message ids are still these (a stale draft is dropped). */
  expectLastIds?: { prospect: number; agent: number };
  /**
   * Also queue the message in the outbox for this prospect conversation's channel, in the same statement;
   * its delivery job (channels/deliver.job.ts) is queued through `jobs` in the same transaction (one is opened
   * when `db` is the pool): a committed reply always has a job that sends it.
   */
  outboxFor?: LoadedConversation;
  /** With outboxFor: the runner the delivery job is queued through, in the same transaction as the message. */
  jobs?: JobRunner;
  /**
   * With outboxFor: this is the one opt-out confirmation (CTIA), which goes out although the address is now
   * opted out; every other row is checked against the opt-outs when it is sent (channels/deliver.job.ts).
   */
  optOutNotice?: boolean;
  /** With outboxFor on WhatsApp: the approved template this message goes as outside the 24-hour window (a campaign's). */
  template?: { name: string; language: string; components?: unknown[] } | null;
}

/**
 * Inserts a message and keeps the conversation's messagesCount and lastMessageDate right (the list screen
 * sorts on them); optionally only when the newest message ids are the expected ones, and with its outbox
 * row. One statement. Returns null when a message with the same externalId is already stored (a
 * redelivery) or the ids changed. Callers hold the conversation row lock (a transaction with
 * lockConversationRow), so a message stored meanwhile cannot slip in between the check and the insert.
 */
export async function insertMessage(
  db: Executor,
  input: NewMessage,
  options: InsertOptions = {},
): Promise<StoredMessage | null> {
  const prospect = options.outboxFor?.prospect ?? null;
  if (prospect && !options.jobs) throw new Error('insertMessage: outboxFor needs options.jobs to queue the delivery');
  // The message, its outbox row and its delivery job commit together.
  if (prospect && typeof (db as { rollback?: unknown }).rollback !== 'function') {
    return db.transaction((tx) => insertMessage(tx, input, options));
  }
  const dateSent = input.dateSent ?? new Date();
  const expect = options.expectLastIds;
  const lockFor = options.lockFor;
  const sources = [lockFor ? sql`locked` : null, expect ? sql`ids` : null].filter((x) => x !== null);
  const conditions = expect ? sql`where ids.prospect = ${expect.prospect} and ids.agent = ${expect.agent}` : sql``;
  const result = await db.execute(sql`
    with ${lockFor ? sql`locked as (
      select id from ${conversations}
      where id = ${input.conversationId} and not ai_paused
        ${lockFor.phase !== undefined ? sql`and phase = ${lockFor.phase}` : sql``}
        ${lockFor.messagesCount !== undefined ? sql`and messages_count = ${lockFor.messagesCount}` : sql``}
      for update
    ), ` : sql``}${expect ? sql`ids as (
      select coalesce(max(id) filter (where role = 'PROSPECT'), 0) as prospect,
             coalesce(max(id) filter (where role = 'AGENT'), 0) as agent
      from ${messages} where conversation_id = ${input.conversationId}
    ), ` : sql``}inserted as (
      insert into ${messages} (conversation_id, role, message, date_sent, external_id, written_by_human, author_user_id)
      select ${input.conversationId}::int, ${input.role}, ${input.message}, ${dateSent.toISOString()}::timestamptz,
             ${input.externalId ?? null}::text, ${input.writtenByHuman ?? false}::boolean,
             (select u.id from ${users} u where u.id = ${input.authorUserId ?? null}::int)
      ${sources.length > 0 ? sql`from ${sql.join(sources, sql`, `)} ${conditions}` : sql``}
      on conflict do nothing
      returning id, conversation_id, role, message, date_sent
    ), counted as (
      update ${conversations} set messages_count = messages_count + 1,
        last_message_date = greatest(last_message_date, ${dateSent.toISOString()}::timestamptz), updated_at = now()
      where id = ${input.conversationId} and exists (select 1 from inserted)
    )${prospect ? sql`, queued as (
      insert into ${outbox} (conversation_id, messaging_account_id, message_id, channel, payload)
      select i.conversation_id, ${prospect.messagingAccountId}::int, i.id, ${prospect.accountType},
             jsonb_build_object('text', i.message, 'recipientId', ${prospect.externalId}::text, 'messageId', i.id${options.optOutNotice ? sql`, 'optOutNotice', true` : sql``}${options.template ? sql`, 'template', ${JSON.stringify(options.template)}::jsonb` : sql``})
      from inserted i
      returning id
    )` : sql``}${messageCreatedCtes('inserted')}
    select id, conversation_id, role, message, date_sent${prospect ? sql`, (select q.id from queued q) as outbox_id` : sql``} from inserted`);
  const row = (
    result as unknown as {
      rows: { id: string | number; conversation_id: number; role: StoredMessage['role']; message: string; date_sent: string | Date; outbox_id?: string | number | null }[];
    }
  ).rows[0];
  if (!row) return null;
  const stored: StoredMessage = {
    id: Number(row.id),
    conversationId: row.conversation_id,
    role: row.role,
    message: row.message,
    dateSent: new Date(row.date_sent),
  };
  if (row.outbox_id != null) {
    const outboxId = Number(row.outbox_id);
    await options.jobs!.enqueue(DELIVER_JOB, { outboxId }, { singletonKey: deliverJobKey(outboxId), executor: db });
  }
  return stored;
}

/**
 * Stores a prospect's message and everything that goes with it, in ONE statement: the conversation row is
 * locked first (so the message's id is drawn after any reply being sent right now has committed — a reply
 * can never get an id above a message it did not see), the message inserted (nothing more on a duplicate
 * externalId), the counters updated, the debounce window opened (-3, the working phase kept in
 * resumePhase) when the AI is not paused and the conversation is in a working phase or already -3, the
 * pending follow-up cancelled and the unanswered entry removed (kept with its count reset when it holds
 * errors). In an UPDATE every right-hand side reads the old row, so resume_phase takes the phase before.
 */
export async function storeProspectMessage(
  db: Executor,
  input: { conversationId: number; message: string; externalId?: string; dateSent?: Date; followUpJobKey: string },
): Promise<{
  conversation: { id: number; uuid: string };
  typeConfig: string | null;
  stored: StoredMessage | null;
  waiting: boolean;
  unansweredChanged: boolean;
} | null> {
  const id = input.conversationId;
  const dateSent = (input.dateSent ?? new Date()).toISOString();
  const result = await db.execute(sql`
    with locked as (
      select c.id, c.uuid, c.phase, c.ai_paused, c.conversation_type_id from ${conversations} c where c.id = ${id} for update
    ), inserted as (
      insert into ${messages} (conversation_id, role, message, date_sent, external_id, written_by_human)
      select l.id, 'PROSPECT', ${input.message}, ${dateSent}::timestamptz, ${input.externalId ?? null}::text, false from locked l
      on conflict do nothing
      returning id, conversation_id, role, message, date_sent
    ), decided as (
      select not l.ai_paused and (l.phase = -3 or (l.phase >= 0 and l.phase < (
        select count(*) from ${conversationPhases} p where p.conversation_type_id = l.conversation_type_id))) as waiting
      from locked l
    ), updated as (
      update ${conversations} c set messages_count = c.messages_count + 1,
        last_message_date = greatest(c.last_message_date, ${dateSent}::timestamptz), updated_at = now(),
        resume_phase = case when d.waiting then (case when c.phase = -3 then c.resume_phase else c.phase end) else c.resume_phase end,
        -- A resolved or snoozed conversation comes back when the prospect writes again (issue 24).
        state = 'open', snoozed_until = null,
        phase = case when d.waiting then -3 else c.phase end
      from decided d
      where c.id = ${id} and exists (select 1 from inserted)
      returning d.waiting
    ), cancelled as (
      update jobs set status = 'done', finished_at = now(), last_error = 'cancelled'
      where singleton_key = ${input.followUpJobKey} and status = 'pending' and exists (select 1 from inserted)
    ), removed as (
      delete from ${unansweredConversations}
      where conversation_id = ${id} and errors = '[]' and exists (select 1 from inserted) returning id
    ), reset as (
      update ${unansweredConversations} set follow_up_count = 0, updated_at = now()
      where conversation_id = ${id} and errors <> '[]' and follow_up_count <> 0 and exists (select 1 from inserted) returning id
    )${messageCreatedCtes('inserted')}
    select l.id as conversation_id, l.uuid, t.config as type_config,
      i.id, i.role, i.message, i.date_sent,
      coalesce((select waiting from updated), false) as waiting,
      (select count(*) from removed) + (select count(*) from reset) as unanswered_changed
    from locked l
    left join ${conversationTypes} t on t.id = l.conversation_type_id
    left join inserted i on true`);
  const row = (result as unknown as {
    rows: {
      conversation_id: number;
      uuid: string;
      type_config: string | null;
      id: string | number | null;
      role: StoredMessage['role'];
      message: string;
      date_sent: string | Date;
      waiting: boolean;
      unanswered_changed: string | number;
    }[];
  }).rows[0];
  if (!row) return null;
  return {
    conversation: { id: row.conversation_id, uuid: row.uuid },
    typeConfig: row.type_config,
    stored: row.id == null ? null : { id: Number(row.id), conversationId: id, role: row.role, message: row.message, dateSent: new Date(row.date_sent) },
    waiting: row.waiting === true,
    unansweredChanged: Number(row.unanswered_changed) > 0,
  };
}

/** Locks the conversation row for the rest of the transaction and returns its current state. */
export async function lockConversationRow(tx: Executor, conversationId: number): Promise<ConversationRow | undefined> {
  const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversationId)).for('update');
  return row;
}

export function emitConversationChanged(ctx: AppContext, conversation: { id: number; uuid: string }): void {
  ctx.events.emit('conversation.changed', { conversationId: conversation.id, uuid: conversation.uuid });
}
