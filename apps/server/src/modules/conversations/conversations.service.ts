import { complianceOfConversation, withOptOutMarks } from '../compliance/opt-out.service.ts';
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lte, type SQL, sql } from 'drizzle-orm';
import { isUuid } from '@sales-agent/shared/uuid';
import { type AccountType, PHASE } from '@sales-agent/shared/enums';
import type { ConversationListQuery } from '@sales-agent/shared/schemas/conversation';
import { receiveProspectMessage, sendHumanMessage, setConversationPhase, startWebConversation, triggerFollowUp } from '../../agent/agent.service.ts';
import type { Actor, AppContext } from '../../context.ts';
import type { Database, Db } from '../../db/client.ts';
import { type PreparedRead, preparedRead } from '../../db/prepared.ts';
import {
  conversationPhases,
  conversationReads,
  conversations,
  conversationTypes,
  messages,
  messagingAccounts,
  prospects,
  unansweredConversations,
  users,
  conversationAnalyses,
} from '../../db/schema/index.ts';
import { isWorkingPhase } from '../../conversations/phases.ts';
import { cancelConversationJobs } from '../../agent/agent.service.ts';
import { endSilence } from '../../conversations/unanswered.ts';
import { openHandoff } from '../../conversations/analytics-events.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { assertTypeExists } from '../conversation-types/conversation-types.service.ts';
import { grantedAccountIds } from '../messaging-accounts/access.ts';
import { type AccessibleConversation, grantedAccountSql, listedSql, viewAccess } from './conversation-policy.ts';
import { removeCallRecording } from '../../voice/call-recording-file.ts';
import { isUnreadFor } from './conversation-reads.ts';
import { readConversationActions } from './conversation-actions.ts';
import { readWorkspaceDetail, searchCondition } from './workspace.service.ts';
import { captureContactDetailsAfterMessage } from '../contacts/contact-capture.ts';
import { isEnded, parseJson, presentDetail, presentListRow, type StoredDetail } from './conversations.presenter.ts';

/**
 * The count behind totalPages stops a little beyond the requested page (at least 1,000 rows or 10 pages
 * ahead), so a page of a list of millions never counts them all; the answer then says totalPages is a lower
 * bound (docs/performance.md "Conversation list").
 */
export const COUNT_CAP_PAGES_AHEAD = 10;
export const COUNT_CAP_MIN_ROWS = 1_000;

/**
 * A whole uuid matches exactly; the start of one matches as the uuid range it spans ("abc1" → abc10000-… to
 * abc1ffff-…), so both use the unique uuid index instead of scanning every row's text.
 */
function uuidMatch(column: typeof conversations.uuid | typeof prospects.uuid, value: string): SQL {
  if (isUuid(value)) return eq(column, value);
  const hex = value.replaceAll('-', '').slice(0, 32);
  const asUuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return and(gte(column, asUuid(hex.padEnd(32, '0'))), lte(column, asUuid(hex.padEnd(32, 'f')))) as SQL;
}

/** The workspace filters of the list (issue 24): search, assignee, state, channel, account, needs a person. */
function workspaceFilters(actor: Actor, query: ConversationListQuery, search: SQL | undefined): (SQL | undefined)[] {
  const c = conversations;
  const notSnoozed = sql`(${c.snoozedUntil} is null or ${c.snoozedUntil} <= now())`;
  return [
    search,
    query.assignee === 'me'
      ? eq(c.assigneeUserId, actor.id)
      : query.assignee === 'none'
        ? isNull(c.assigneeUserId)
        : query.assignee
          ? sql`${c.assigneeUserId} = (select ${users.id} from ${users} where ${users.email} = ${query.assignee})`
          : undefined,
    query.state === 'open'
      ? and(eq(c.state, 'open'), notSnoozed)
      : query.state === 'snoozed'
        ? and(eq(c.state, 'open'), sql`${c.snoozedUntil} > now()`)
        : query.state === 'resolved'
          ? eq(c.state, 'resolved')
          : undefined,
    query.channel === 'WEB'
      ? isNull(c.messagingAccountId)
      : query.channel
        ? inArray(c.messagingAccountId, sql`(select ${messagingAccounts.id} from ${messagingAccounts} where ${messagingAccounts.type} = ${query.channel})`)
        : undefined,
    query.messagingAccount !== undefined ? eq(c.messagingAccountId, query.messagingAccount) : undefined,
    query.needsPerson === 'true'
      ? and(
          eq(c.state, 'open'),
          notSnoozed,
          eq(c.aiPaused, false),
          sql`(${c.phase} in (${PHASE.NEEDS_HUMAN}, ${PHASE.ERRORED}) or exists (select 1 from ${unansweredConversations} u
            where u.conversation_id = ${c.id} and u.errors <> '[]'))`,
        )
      : undefined,
  ];
}

/**
 * The conversation list (spec §2.13, §7.6): filters and order of the query string, the viewer's scope
 * (NORMAL: granted accounts only), one page and a capped count.
 */
export async function listConversations(ctx: AppContext, actor: Actor, query: ConversationListQuery) {
  const granted = await grantedAccountIds(ctx, actor);
  if (granted !== 'all' && granted.length === 0) return { conversations: [], totalPages: 0, totalPagesIsLowerBound: false };

  const c = conversations;
  const filters: (SQL | undefined)[] = [
    query.uuid ? uuidMatch(c.uuid, query.uuid) : undefined,
    query.prospectUuid
      ? inArray(c.prospectId, ctx.db.select({ id: prospects.id }).from(prospects).where(uuidMatch(prospects.uuid, query.prospectUuid)))
      : undefined,
    query.phase !== undefined ? eq(c.phase, query.phase) : undefined,
    query.conversationType !== undefined ? eq(c.conversationTypeId, query.conversationType) : undefined,
    // rating and recordingDuration are integer columns: a fractional bound is rounded inwards (>= 1.5 is >= 2).
    query.minRating !== undefined ? gte(c.rating, Math.ceil(query.minRating)) : undefined,
    query.maxRating !== undefined ? lte(c.rating, Math.floor(query.maxRating)) : undefined,
    query.minRecordingDuration !== undefined ? gte(c.recordingDuration, Math.ceil(query.minRecordingDuration)) : undefined,
    query.maxRecordingDuration !== undefined ? lte(c.recordingDuration, Math.floor(query.maxRecordingDuration)) : undefined,
    query.hasRecording === 'true' ? isNotNull(c.recordingUrl) : query.hasRecording === 'false' ? isNull(c.recordingUrl) : undefined,
    query.outcome !== undefined
      ? inArray(c.id, ctx.db.select({ id: conversationAnalyses.conversationId }).from(conversationAnalyses).where(eq(conversationAnalyses.outcome, query.outcome)))
      : undefined,
    // The scope is the conversation's own copy of its prospect's account: an index range, not a join.
    listedSql(granted),
    ...workspaceFilters(actor, query, query.q ? await searchCondition(ctx, query.q) : undefined),
  ];
  const where = and(...filters.filter((f): f is SQL => f !== undefined));
  // Both orders spell exactly the indexes of db/schema/conversations.ts (drizzle writes them DESC NULLS
  // LAST), so a page is an index scan that stops early instead of a sort of every match.
  const order =
    query.orderBy === 'latestConversations'
      ? [sql`${c.createdAt} desc nulls last`, sql`${c.id} desc nulls last`]
      : [sql`${c.lastMessageDate} desc nulls last`, sql`${c.id} desc nulls last`];
  const offset = (query.page - 1) * query.limit;

  const cap = offset + Math.max(COUNT_CAP_MIN_ROWS, query.limit * COUNT_CAP_PAGES_AHEAD);
  // The page is chosen on conversations alone and only its rows are joined: a deep page's OFFSET rows are
  // skipped in the index, never joined.
  const page = ctx.db
    .select({
      id: c.id,
      uuid: c.uuid,
      phase: c.phase,
      conversationTypeId: c.conversationTypeId,
      rating: c.rating,
      recordingDuration: c.recordingDuration,
      recordingUrl: c.recordingUrl,
      messagesCount: c.messagesCount,
      lastMessageDate: c.lastMessageDate,
      createdAt: c.createdAt,
      prospectId: c.prospectId,
      messagingAccountId: c.messagingAccountId,
      aiPaused: c.aiPaused,
      costUsd: c.costUsd,
      assigneeUserId: c.assigneeUserId,
      state: c.state,
      snoozedUntil: c.snoozedUntil,
    })
    .from(c)
    .where(where)
    .orderBy(...order)
    .limit(query.limit)
    .offset(offset)
    .as('page');
  const pageOrder =
    query.orderBy === 'latestConversations'
      ? [sql`${page.createdAt} desc nulls last`, sql`${page.id} desc nulls last`]
      : [sql`${page.lastMessageDate} desc nulls last`, sql`${page.id} desc nulls last`];
  // The page and the count are independent: on PostgreSQL they run on two pooled connections at once.
  const [rows, total] = await Promise.all([
    ctx.db
      .select({
        id: page.id,
        uuid: page.uuid,
        phase: page.phase,
        conversationTypeId: page.conversationTypeId,
        typeTitle: conversationTypes.title,
        rating: page.rating,
        outcome: conversationAnalyses.outcome,
        recordingDuration: page.recordingDuration,
        recordingUrl: page.recordingUrl,
        messagesCount: page.messagesCount,
        lastMessageDate: page.lastMessageDate,
        prospectId: page.prospectId,
        prospectUuid: prospects.uuid,
        prospectName: prospects.name,
        prospectExternalId: prospects.externalId,
        accountId: messagingAccounts.id,
        pageName: messagingAccounts.pageName,
        accountType: messagingAccounts.type,
        aiPaused: page.aiPaused,
        costUsd: page.costUsd,
        state: page.state,
        snoozedUntil: page.snoozedUntil,
        assignee: users.email,
        // Inbox fields (issue 12), still one statement: per row of the page only, the latest message through
        // the (conversation_id, date_sent, id) index read backwards, the phase count through
        // (conversation_type_id, index), and the unanswered entry through its unique conversation_id.
        lastMessage: sql<unknown>`(select json_build_object('role', ${messages.role}, 'preview', substr(${messages.message}, 1, 160), 'dateSent', ${messages.dateSent},
            'writtenByHuman', ${messages.writtenByHuman}, 'authorEmail', (select u.email from ${users} u where u.id = ${messages.authorUserId}))
          from ${messages} where ${messages.conversationId} = ${page.id}
          order by ${messages.dateSent} desc, ${messages.id} desc limit 1)`,
        phaseCount: sql<number>`(select count(*) from ${conversationPhases} where ${conversationPhases.conversationTypeId} = ${page.conversationTypeId})`.mapWith(Number),
        followUpStatus: unansweredConversations.status,
        followUpCount: unansweredConversations.followUpCount,
        followUpHasErrors: sql<boolean | null>`(${unansweredConversations.errors} <> '[]')`,
        // The viewer's own read mark (unread, per user): a primary-key probe per row of the page.
        lastReadAt: conversationReads.lastReadAt,
      })
      .from(page)
      .leftJoin(unansweredConversations, eq(unansweredConversations.conversationId, page.id))
      .leftJoin(conversationAnalyses, eq(conversationAnalyses.conversationId, page.id))
      .leftJoin(conversationReads, and(eq(conversationReads.userId, actor.id), eq(conversationReads.conversationId, page.id)))
      .leftJoin(conversationTypes, eq(conversationTypes.id, page.conversationTypeId))
      .leftJoin(prospects, eq(prospects.id, page.prospectId))
      .leftJoin(messagingAccounts, eq(messagingAccounts.id, page.messagingAccountId))
      .leftJoin(users, eq(users.id, page.assigneeUserId))
      .orderBy(...pageOrder),
    countWithinBudget(ctx, where, cap + 1),
  ]);
  const present = await withOptOutMarks(ctx.db, rows, (r) => presentListRow(r, actor.role === 'ADMIN'));
  if (total === null) {
    // The count ran out of time (a rare filter combination over millions of rows): say there is at least
    // one more page when this one is full.
    const full = rows.length === query.limit;
    return { conversations: present, totalPages: query.page + (full ? 1 : 0), totalPagesIsLowerBound: full };
  }
  const counted = Math.min(total, cap);

  return {
    conversations: present,
    totalPages: Math.ceil(counted / query.limit),
    totalPagesIsLowerBound: total > cap,
  };
}

/**
 * Counts matches up to `limit` rows, or null when that takes longer than CONVERSATION_LIST_COUNT_BUDGET_MS
 * (the page itself is always answered).
 */
async function countWithinBudget(ctx: AppContext, where: SQL | undefined, limit: number): Promise<number | null> {
  try {
    return await ctx.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local statement_timeout = ${Math.floor(ctx.config.CONVERSATION_LIST_COUNT_BUDGET_MS)}`));
      const capped = tx.select({ one: sql`1` }).from(conversations).where(where).limit(limit).as('capped');
      const [{ total }] = await tx.select({ total: count() }).from(capped);
      return Number(total);
    });
  } catch (err) {
    const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
    if (code === '57014') return null; // query_canceled by statement_timeout
    throw err;
  }
}

/**
 * The latest conversation of the prospect `externalId` on a messaging account (ADMIN; the webhook simulator
 * links to it). 404 until the inbound job has stored the prospect's first message.
 */
export async function findProspectConversation(ctx: AppContext, messagingAccountId: number, externalId: string) {
  const [row] = await ctx.db
    .select({ id: conversations.id, uuid: conversations.uuid })
    .from(prospects)
    .innerJoin(conversations, eq(conversations.prospectId, prospects.id))
    .where(and(eq(prospects.messagingAccountId, messagingAccountId), eq(prospects.externalId, externalId)))
    // The simulator's own (simulated) prospect first: a real person with the same id is another prospect.
    .orderBy(desc(prospects.simulated), desc(conversations.id))
    .limit(1);
  if (!row) throw notFound('This prospect has no conversation yet.', 'CONVERSATION_NOT_FOUND');
  return row;
}

/** Starts a web chat of a type (spec §7.6 POST /api/conversation/new). */
export async function createWebConversation(
  ctx: AppContext,
  conversationTypeId: number,
  options: { publicOnly: boolean } = { publicOnly: false },
): Promise<{ uuid: string }> {
  // Visitors and NORMAL users may start only public types (issue 12); an ADMIN may try any.
  await assertTypeExists(ctx, conversationTypeId, options);
  const { uuid } = await startWebConversation(ctx, conversationTypeId);
  return { uuid };
}

/**
 * The detail read (GET /api/conversation/{uuid}), as the detail screen shows it: access check, conversation,
 * type, prospect, phases and messages in ONE statement answering one JSON value, planned once per database
 * (db/prepared.ts). Every statement costs a round trip on PostgreSQL, and its parse and plan cost PGlite
 * several times its execution; the five sequential statements this replaces were most of the read's time
 * (docs/performance.md "Conversation read").
 */
export async function readConversationDetail(ctx: AppContext, actor: Actor | null, uuid: string) {
  const [row] = await detailRead(ctx.database).execute({ uuid, userId: actor?.id ?? null });
  const detail = parseJson<StoredDetail>(row?.detail);
  if (!detail) throw notFound('Conversation not found', 'CONVERSATION_NOT_FOUND');
  const canAdminister = viewAccess(actor, detail, detail.granted);
  const compliance = await complianceOfConversation(ctx.db, detail, canAdminister);
  return {
    ...presentDetail(detail, canAdminister, !ctx.config.OPENAI_API_KEY, actor?.role === 'ADMIN'),
    ...(await readConversationActions(ctx, detail.id, canAdminister, detail.type?.id ?? null)),
    ...compliance,
    ...(await readWorkspaceDetail(ctx, actor, detail, canAdminister)),
  };
}

const detailReads = new WeakMap<Database, PreparedRead<{ uuid: string; userId: number | null }, { detail: unknown }>>();

function detailRead(database: Database) {
  let read = detailReads.get(database);
  if (!read) {
    read = preparedRead(database, 'conversation_detail', prepareDetail);
    detailReads.set(database, read);
  }
  return read;
}

function prepareDetail(db: Db) {
  const c = conversations;
  const t = conversationTypes;
  const p = prospects;
  const a = messagingAccounts;
  const cp = conversationPhases;
  const m = messages;
  const detail = sql<unknown>`json_build_object(
    'id', ${c.id}, 'uuid', ${c.uuid}, 'phase', ${c.phase}, 'rating', ${c.rating},
    'recordingDuration', ${c.recordingDuration}, 'recordingUrl', ${c.recordingUrl},
    'conversationTypeId', ${c.conversationTypeId}, 'typeVersion', ${c.typeVersion}, 'prospectId', ${c.prospectId},
    'messagingAccountId', ${c.messagingAccountId}, 'aiPaused', ${c.aiPaused},
    'state', ${c.state}, 'assignee', (select u.email from ${users} u where u.id = ${c.assigneeUserId}),
    'snoozedUntil', to_char(${c.snoozedUntil} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'type', case when ${t.id} is null then null else json_build_object('id', ${t.id}, 'title', ${t.title}, 'config', ${t.config}, 'initialMessage', ${t.initialMessage}) end,
    'prospect', case when ${p.id} is null then null else json_build_object('uuid', ${p.uuid}, 'name', ${p.name}, 'externalId', ${p.externalId}) end,
    'account', case when ${a.id} is null then null else json_build_object('id', ${a.id}, 'pageName', ${a.pageName}, 'type', ${a.type}) end,
    'phases', (select json_agg(json_build_object('index', ${cp.index}, 'prompt', ${cp.prompt}) order by ${cp.index})
      from ${cp} where ${cp.conversationTypeId} = ${c.conversationTypeId}),
    'messages', (select json_agg(json_build_object('id', ${m.id}, 'role', ${m.role}, 'message', ${m.message},
        'dateSent', to_char(${m.dateSent} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'previousMessage', ${m.previousMessage},
        'editedAt', to_char(${m.editedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'deletedAt', to_char(${m.deletedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'hasMedia', ${m.mediaKey} is not null, 'mediaType', ${m.mediaType},
        'writtenByHuman', ${m.writtenByHuman}, 'authorEmail', (select u.email from ${users} u where u.id = ${m.authorUserId}),
        'delivery', case when ${m.role} = 'AGENT' and ${c.prospectId} is not null then ${deliveryOf(sql`${c.id}`, sql`${m.id}`)} end) order by ${m.dateSent}, ${m.id})
      from ${m} where ${m.conversationId} = ${c.id}),
    'granted', ${grantedAccountSql(sql.placeholder('userId'), c.messagingAccountId)})`;
  return db
    .select({ detail: detail.as('detail') })
    .from(c)
    .leftJoin(t, eq(t.id, c.conversationTypeId))
    .leftJoin(p, eq(p.id, c.prospectId))
    .leftJoin(a, eq(a.id, p.messagingAccountId))
    .where(eq(c.uuid, sql.placeholder('uuid')))
    .limit(1);
}

/**
 * A reply's delivery state on its channel (issue 24, docs/channels.md "Delivery states"): failed (with the
 * reason) when a part failed or the send failed for good; else the least advanced state of its parts (a split
 * reply is read when every part is); pending while it waits in the outbox; null when it was never sent.
 */
function deliveryOf(conversationId: SQL, messageId: SQL): SQL {
  return sql`coalesce(
    (select case when bool_or(cm.delivery_state = 'failed')
        then json_build_object('state', 'failed', 'error', max(cm.delivery_error) filter (where cm.delivery_state = 'failed'))
        else json_build_object('state', (array['sent', 'delivered', 'read'])[min(case cm.delivery_state when 'read' then 3 when 'delivered' then 2 else 1 end)]) end
      from channel_messages cm
      where cm.conversation_id = ${conversationId} and cm.message_id = ${messageId} and cm.direction = 'OUT'
      having count(*) > 0),
    (select json_build_object('state', case o.status when 'FAILED' then 'failed' when 'PENDING' then 'pending' end, 'error', o.last_error)
      from outbox o where o.message_id = ${messageId} and o.status in ('FAILED', 'PENDING') order by o.id desc limit 1))`;
}

function changed(ctx: AppContext, conv: { id: number; uuid: string }): void {
  ctx.events.emit('conversation.changed', { conversationId: conv.id, uuid: conv.uuid });
}

/** Any phase code of spec §4: -3, -2, -1, 0..N (N = ended) or 9999. */
export async function changePhase(ctx: AppContext, conv: AccessibleConversation, phase: number): Promise<void> {
  const phaseCount = conv.conversationTypeId ? await countPhases(ctx, conv.conversationTypeId) : 0;
  const special = [PHASE.WAITING, PHASE.NEEDS_HUMAN, PHASE.ERRORED, PHASE.IGNORED] as number[];
  if (!special.includes(phase) && !(phase >= 0 && phase <= phaseCount)) {
    throw badRequest(`phase: must be -3, -2, -1, 0 to ${phaseCount} or 9999`, 'INVALID_PHASE');
  }
  // setConversationPhase emits conversation.changed itself.
  await setConversationPhase(ctx, conv.id, phase);
}

async function countPhases(ctx: AppContext, conversationTypeId: number): Promise<number> {
  const [{ n }] = await ctx.db
    .select({ n: count() })
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, conversationTypeId));
  return Number(n);
}

/**
 * Moves a conversation to another type. Its phase must mean something in the new type (spec §4): a working
 * phase (or the one -3 resumes) below the new type's phase count, or its end N when the conversation had
 * ended; otherwise 409 asks to set the phase first (checked on the locked row, so a turn moving it meanwhile
 * cannot slip past).
 */
export async function changeConversationType(ctx: AppContext, conv: AccessibleConversation, conversationTypeId: number): Promise<void> {
  await assertTypeExists(ctx, conversationTypeId);
  const newCount = await countPhases(ctx, conversationTypeId);
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ phase: conversations.phase, resumePhase: conversations.resumePhase, typeId: conversations.conversationTypeId })
      .from(conversations)
      .where(eq(conversations.id, conv.id))
      .for('update');
    if (!row) throw notFound('Conversation not found', 'CONVERSATION_NOT_FOUND');
    const oldCount = row.typeId ? await countPhasesIn(tx, row.typeId) : 0;
    const phase = row.phase === PHASE.WAITING ? row.resumePhase : row.phase;
    const fits =
      phase === null ||
      phase < 0 ||
      phase === PHASE.IGNORED ||
      phase < newCount ||
      (phase === newCount && row.phase === oldCount && oldCount > 0);
    if (!fits) {
      throw conflict(
        `This conversation is in phase ${phase}, which the new type does not have (its phases are ${newCount === 0 ? 'none' : `0 to ${newCount - 1}`}). Set the conversation's phase first, then change its type.`,
        'PHASE_NOT_IN_TYPE',
      );
    }
    await tx.update(conversations).set({ conversationTypeId, updatedAt: new Date() }).where(eq(conversations.id, conv.id));
  });
  changed(ctx, conv);
}

async function countPhasesIn(db: Db | Parameters<Parameters<Db['transaction']>[0]>[0], conversationTypeId: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(conversationPhases).where(eq(conversationPhases.conversationTypeId, conversationTypeId));
  return Number(n);
}

export async function deleteConversation(ctx: AppContext, conv: AccessibleConversation): Promise<void> {
  const [gone] = await ctx.db.delete(conversations).where(eq(conversations.id, conv.id)).returning({ recordingUrl: conversations.recordingUrl });
  await cancelConversationJobs(ctx, conv.id);
  // A call's recording is a file in storage (docs/voice.md): it goes with its conversation.
  if (gone?.recordingUrl) await removeCallRecording(ctx, conv.uuid);
  changed(ctx, conv);
  ctx.events.emit('unanswered.changed', { conversationId: conv.id });
}

/** Deletes those of `messageIds` that belong to the conversation; keeps messagesCount/lastMessageDate right. */
export async function deleteMessages(ctx: AppContext, conv: AccessibleConversation, messageIds: number[]): Promise<number> {
  const deleted = await ctx.db.transaction(async (tx) => {
    const gone = await tx
      .delete(messages)
      .where(and(eq(messages.conversationId, conv.id), inArray(messages.id, messageIds)))
      .returning({ id: messages.id });
    await tx
      .update(conversations)
      .set({
        messagesCount: sql`(select count(*) from ${messages} where ${messages.conversationId} = ${conv.id})`,
        lastMessageDate: sql`(select max(${messages.dateSent}) from ${messages} where ${messages.conversationId} = ${conv.id})`,
        updatedAt: new Date(),
      })
      .where(eq(conversations.id, conv.id));
    return gone.length;
  });
  if (deleted === 0) throw notFound('None of these messages belong to this conversation', 'MESSAGE_NOT_FOUND');
  changed(ctx, conv);
  return deleted;
}

export async function editMessage(ctx: AppContext, conv: AccessibleConversation, messageId: number, text: string): Promise<void> {
  const updated = await ctx.db
    .update(messages)
    .set({ message: text })
    .where(and(eq(messages.id, messageId), eq(messages.conversationId, conv.id)))
    .returning({ id: messages.id });
  if (updated.length === 0) throw notFound('Message not found', 'MESSAGE_NOT_FOUND');
  changed(ctx, conv);
}

/** What a visitor is told when writing into an ended web chat (409, also shown as the closing notice). */
export const CONVERSATION_ENDED_MESSAGE = 'This conversation has ended. Start a new conversation to write to us again.';

/**
 * A written message (spec §7.6): on a web chat the visitor writes as the prospect and the agent answers;
 * on a prospect conversation a person writes as the business (AGENT), which pauses the AI there.
 * An ended web chat takes no more messages: nobody would answer them (issue 12), so 409 says so.
 */
export async function writeMessage(ctx: AppContext, actor: Actor | null, conv: AccessibleConversation, text: string) {
  if (conv.prospectId === null) {
    const phaseCount = conv.conversationTypeId ? await countPhases(ctx, conv.conversationTypeId) : 0;
    if (isEnded(conv.phase, phaseCount)) throw conflict(CONVERSATION_ENDED_MESSAGE, 'CONVERSATION_ENDED');
    await receiveProspectMessage(ctx, conv.id, text, { webChat: true });
    await captureContactDetailsAfterMessage(ctx, conv.id, text);
  } else {
    // loadConversationToView already hid the conversation from anyone who cannot administer it.
    await sendHumanMessage(ctx, conv.id, text, actor as Actor);
  }
  // Both services emit conversation.changed themselves.
}

export async function requestFollowUp(ctx: AppContext, conv: AccessibleConversation): Promise<{ message: string }> {
  // The follow-up's announce emits conversation.changed (a refused one changed nothing).
  return triggerFollowUp(ctx, conv.id);
}

/**
 * Take over (issue 12): the AI pauses exactly as when a person writes (aiPaused), without sending anything;
 * its waiting turn and follow-up are cancelled. Only prospect conversations: on a web chat a person cannot
 * answer as the business (a written message there is the visitor's), so there is nothing to take over.
 */
export async function takeOver(ctx: AppContext, conv: AccessibleConversation) {
  if (conv.prospectId === null) {
    throw conflict('A web chat cannot be taken over: only conversations with a prospect on a channel can.', 'NOT_A_PROSPECT_CONVERSATION');
  }
  await ctx.db.transaction(async (tx) => {
    const paused = await tx
      .update(conversations)
      .set({ aiPaused: true, updatedAt: new Date() })
      .where(and(eq(conversations.id, conv.id), eq(conversations.aiPaused, false)))
      .returning({ id: conversations.id });
    // Counted once per take-over (analytics "Hand-offs"); pressing it again on a paused conversation is no new one.
    if (paused.length > 0) await openHandoff(tx, conv.id, 'TAKEN_OVER');
  });
  await cancelConversationJobs(ctx, conv.id);
  // No follow-up will come while a person answers: its pending entry leaves the unanswered list (errors stay).
  await endSilence(ctx, conv.id);
  changed(ctx, conv);
  return { message: 'You are answering; the AI is paused', phase: conv.phase, aiPaused: true };
}

/**
 * Hand back to the AI (issue 12): sets a working phase through the same path as PATCH phase, which clears
 * aiPaused and, when the prospect's last message is unanswered, schedules the agent's turn at once.
 * Without a phase: the phase the conversation was in when it was paused (or the one -3 will resume), else 0.
 */
export async function handBack(ctx: AppContext, conv: AccessibleConversation, requested: number | undefined) {
  if (conv.prospectId === null) {
    throw conflict('A web chat cannot be handed back: the AI never stopped answering it.', 'NOT_A_PROSPECT_CONVERSATION');
  }
  const phaseCount = conv.conversationTypeId ? await countPhases(ctx, conv.conversationTypeId) : 0;
  if (phaseCount === 0) {
    throw conflict('This conversation has no type with phases, so the AI has nothing to resume.', 'NO_WORKING_PHASE');
  }
  const [row] = await ctx.db
    .select({ resumePhase: conversations.resumePhase })
    .from(conversations)
    .where(eq(conversations.id, conv.id))
    .limit(1);
  const fallback = isWorkingPhase(conv.phase, phaseCount)
    ? conv.phase
    : row?.resumePhase !== null && row?.resumePhase !== undefined && isWorkingPhase(row.resumePhase, phaseCount)
      ? row.resumePhase
      : 0;
  const phase = requested ?? fallback;
  if (!isWorkingPhase(phase, phaseCount)) {
    throw badRequest(`phase: must be a working phase, 0 to ${phaseCount - 1}`, 'INVALID_PHASE');
  }
  // setConversationPhase emits conversation.changed itself.
  await setConversationPhase(ctx, conv.id, phase);
  return { message: 'The AI is answering again', phase, aiPaused: false };
}
