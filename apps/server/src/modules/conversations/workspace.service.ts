import { and, asc, desc, eq, exists, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { ConversationNote, ContactView } from '@sales-agent/shared/schemas/conversation';
import { phoneOf } from '@sales-agent/shared/phone';
import type { Actor, AppContext } from '../../context.ts';
import {
  conversationNotes,
  conversationSearch,
  conversationPhases,
  conversations,
  messagingAccounts,
  notifications,
  userMessagingAccounts,
  users,
} from '../../db/schema/index.ts';
import { badRequest } from '../../lib/errors.ts';
import { rowsOf } from '../../lib/limits.ts';
import { readContact, readContactView } from '../contacts/contacts.service.ts';
import { type AccessibleConversation, grantedAccountSql } from './conversation-policy.ts';

/**
 * The team's workspace on a conversation (issue 24, docs/workspace.md): its assignee, state (open/resolved),
 * snooze, private notes with @mentions, notifications, and the contact behind a prospect conversation.
 */

function changed(ctx: AppContext, conv: { id: number; uuid: string }): void {
  ctx.events.emit('conversation.changed', { conversationId: conv.id, uuid: conv.uuid });
}

/** SQL over `users`: an active teammate who may work on the conversation (an ADMIN, or granted its account). */
function mayWorkOn(ctx: AppContext, conv: AccessibleConversation): SQL | undefined {
  const granted =
    conv.messagingAccountId === null
      ? sql`false`
      : exists(
          ctx.db
            .select({ one: sql`1` })
            .from(userMessagingAccounts)
            .where(and(eq(userMessagingAccounts.userId, users.id), eq(userMessagingAccounts.messagingAccountId, conv.messagingAccountId))),
        );
  return and(eq(users.active, true), or(eq(users.role, 'ADMIN'), granted));
}

/** An active teammate who may work on the conversation: an ADMIN, or a NORMAL user granted its account. */
async function findTeammate(ctx: AppContext, conv: AccessibleConversation, email: string) {
  const [user] = await ctx.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.email, email),
        mayWorkOn(ctx, conv),
      ),
    )
    .limit(1);
  return user ?? null;
}

export interface WorkspaceChange {
  assigneeEmail?: string | null;
  state?: 'open' | 'resolved';
  snoozedUntil?: string | null;
}

/** PATCH /api/conversation/{id} with assigneeEmail / state / snoozedUntil. Assigning notifies the assignee. */
export async function changeWorkspace(ctx: AppContext, actor: Actor, conv: AccessibleConversation, change: WorkspaceChange): Promise<string> {
  const set: Partial<typeof conversations.$inferInsert> = { updatedAt: new Date() };
  let assignee: { id: number; email: string } | null = null;
  if (change.assigneeEmail !== undefined) {
    if (change.assigneeEmail === null) {
      set.assigneeUserId = null;
    } else {
      assignee = await findTeammate(ctx, conv, change.assigneeEmail);
      if (!assignee) {
        throw badRequest(
          `assigneeEmail: ${change.assigneeEmail} is not an active teammate who may work on this conversation.`,
          'ASSIGNEE_NOT_ALLOWED',
        );
      }
      set.assigneeUserId = assignee.id;
    }
  }
  if (change.state !== undefined) {
    set.state = change.state;
    // Resolving ends a snooze; reopening too (it shows at once).
    if (change.snoozedUntil === undefined) set.snoozedUntil = null;
  }
  if (change.snoozedUntil !== undefined) set.snoozedUntil = change.snoozedUntil === null ? null : new Date(change.snoozedUntil);
  const [before] = await ctx.db
    .select({ assigneeUserId: conversations.assigneeUserId })
    .from(conversations)
    .where(eq(conversations.id, conv.id))
    .limit(1);
  await ctx.db.update(conversations).set(set).where(eq(conversations.id, conv.id));
  if (assignee && assignee.id !== before?.assigneeUserId && assignee.id !== actor.id) {
    await notify(ctx, { userId: assignee.id, kind: 'assigned', conversation: conv, byEmail: actor.email, text: null });
  }
  changed(ctx, conv);
  if (change.state === 'resolved') return 'Conversation resolved';
  if (change.state === 'open') return 'Conversation reopened';
  if (change.snoozedUntil) return 'Conversation snoozed';
  if (change.assigneeEmail !== undefined) return change.assigneeEmail === null ? 'Conversation unassigned' : `Assigned to ${change.assigneeEmail}`;
  return 'Conversation updated';
}

async function notify(
  ctx: AppContext,
  input: { userId: number; kind: 'assigned' | 'mentioned'; conversation: { id: number; uuid: string }; byEmail: string; text: string | null },
): Promise<void> {
  await ctx.db.insert(notifications).values({
    userId: input.userId,
    kind: input.kind,
    conversationId: input.conversation.id,
    byEmail: input.byEmail,
    text: input.text,
  });
  ctx.events.emit('notification.created', { userId: input.userId, conversationId: input.conversation.id, uuid: input.conversation.uuid });
}

/** @alice@example.com or @alice (the part of an email before @): the teammates a note mentions. */
export function mentionedTokens(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^|[^\w.])@([\w.+-]+(?:@[\w-]+(?:\.[\w-]+)+)?)/g)) {
    found.add(match[1].toLowerCase().replace(/\.+$/, ''));
  }
  return [...found];
}

/** POST /api/conversation/{id}/notes: a private note; every teammate it @mentions (who may see it) is notified. */
export async function addNote(ctx: AppContext, actor: Actor, conv: AccessibleConversation, text: string): Promise<ConversationNote> {
  const [note] = await ctx.db
    .insert(conversationNotes)
    .values({ conversationId: conv.id, authorUserId: actor.id, text })
    .returning({ id: conversationNotes.id, text: conversationNotes.text, createdAt: conversationNotes.createdAt });
  const tokens = mentionedTokens(text);
  if (tokens.length > 0) {
    const candidates = await ctx.db
      .select({ email: users.email })
      .from(users)
      .where(
        and(
          eq(users.active, true),
          or(
            inArray(users.email, tokens),
            inArray(sql`split_part(${users.email}, '@', 1)`, tokens),
          ),
        ),
      );
    for (const { email } of candidates) {
      if (email === actor.email) continue;
      const teammate = await findTeammate(ctx, conv, email);
      if (teammate) await notify(ctx, { userId: teammate.id, kind: 'mentioned', conversation: conv, byEmail: actor.email, text: text.slice(0, 200) });
    }
  }
  changed(ctx, conv);
  return { id: note.id, text: note.text, authorEmail: actor.email, createdAt: note.createdAt.toISOString() };
}

export async function listNotes(ctx: AppContext, conversationId: number): Promise<ConversationNote[]> {
  const rows = await ctx.db
    .select({ id: conversationNotes.id, text: conversationNotes.text, authorEmail: users.email, createdAt: conversationNotes.createdAt })
    .from(conversationNotes)
    .leftJoin(users, eq(users.id, conversationNotes.authorUserId))
    .where(eq(conversationNotes.conversationId, conversationId))
    .orderBy(asc(conversationNotes.createdAt), asc(conversationNotes.id));
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

// Kept here for callers that found it with the workspace (tests): contacts live in modules/contacts.
export { ensureContact } from '../contacts/contacts.service.ts';

/** Message words as a prefix tsquery ("ana sil" → 'ana':* & 'sil':*), or null when q has no word. */
export function searchTsQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.slice(0, 8).map((w) => `'${w}':*`).join(' & ');
}

/**
 * A search with at most this many matching conversations is served from their ids (read from the GIN index);
 * one with more walks the list's order and checks each conversation's document (docs/performance.md
 * "Conversation search"): for such a common word the page fills after a few rows.
 */
export const SEARCH_IDS_MAX = 2_000;
/** A word in at least this share of the documents (by the column's statistics) walks the list at once. */
const COMMON_SHARE = 0.01;
const STATS_TTL_MS = 5 * 60_000;
let commonLexemes: { at: number; freq: Map<string, number> } | null = null;

/**
 * The most common lexemes of the search documents with the share of documents holding each (ANALYZE's
 * most_common_elems; empty before the first ANALYZE), read at most every 5 minutes.
 */
async function commonLexemeShares(ctx: AppContext): Promise<Map<string, number>> {
  if (commonLexemes && Date.now() - commonLexemes.at < STATS_TTL_MS) return commonLexemes.freq;
  const result = await ctx.db.execute(sql`select e.elem, e.freq from pg_stats s,
      unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(elem, freq)
    where s.tablename = 'conversation_search' and s.attname = 'doc' and e.elem is not null`);
  const freq = new Map<string, number>();
  for (const row of rowsOf<{ elem: string; freq: number }>(result)) freq.set(row.elem, Number(row.freq));
  commonLexemes = { at: Date.now(), freq };
  return freq;
}

/** The estimated share of documents matching all words as prefixes (each word: its common lexemes' shares). */
function estimatedShare(words: string[], shares: Map<string, number>): number {
  let share = 1;
  for (const word of words) {
    let matching = 0;
    for (const [lexeme, freq] of shares) if (lexeme.startsWith(word)) matching = Math.max(matching, freq);
    share *= matching;
  }
  return share;
}

/** The search document query: the words as prefixes, or (a phone number typed) its digits anywhere. */
function searchQuerySql(q: string, tsq: string): SQL {
  const digits = q.replace(/[^\d]/g, '');
  const phoneLike = /^[\d\s+().-]+$/.test(q) && digits.length >= 4;
  // Digit runs are stored as '#'-marked suffixes (the migration), so an infix is a prefix query.
  return phoneLike
    ? sql`(to_tsquery('simple', ${tsq}) || ${`'#${digits.slice(0, 24)}':*`}::tsquery)`
    : sql`to_tsquery('simple', ${tsq})`;
}

/**
 * The list's `q` (issue 24): conversations whose prospect (name, handle), contact (name, email, phone) or any
 * message matches the words, or whose prospect's handle or contact's phone contains the digits typed ("555 0100"
 * finds +15550100). Each conversation has one search document (conversation_search, kept by the triggers of
 * migration "conversation-search-triggers").
 * PostgreSQL cannot estimate a prefix query (any one is guessed at 2 % of the rows, so a rare word walked the
 * whole list), so the plan is chosen here. A common word (≥ 1 % of the documents by the column's statistics)
 * walks the list's order index and checks each row's document: a page fills after ~100 rows. Any other reads
 * up to SEARCH_IDS_MAX + 1 matching ids from the GIN index: few → the page is taken among those ids; more (the
 * statistics were stale) → the walk after all.
 */
export async function searchCondition(ctx: AppContext, q: string, idsMax = SEARCH_IDS_MAX): Promise<SQL> {
  const tsq = searchTsQuery(q);
  if (!tsq) return sql`false`;
  const query = searchQuerySql(q, tsq);
  const walk = sql`(select s.doc from ${conversationSearch} s where s.conversation_id = ${conversations.id}) @@ ${query}`;
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (estimatedShare(words.slice(0, 8), await commonLexemeShares(ctx)) >= COMMON_SHARE) return walk;
  const hits = await ctx.db
    .select({ id: conversationSearch.conversationId })
    .from(conversationSearch)
    .where(sql`${conversationSearch.doc} @@ ${query}`)
    .limit(idsMax + 1);
  if (hits.length === 0) return sql`false`;
  if (hits.length <= idsMax) return sql`${conversations.id} = any(${`{${hits.map((h) => h.id).join(',')}}`}::int[])`;
  return walk;
}

/** The notifications of the signed-in user, newest first, with the count not read yet. */
export async function listNotifications(ctx: AppContext, actor: Actor) {
  // Grants are checked again on every read: a NORMAL user whose grant was removed no longer sees (nor counts)
  // the notifications of that account's conversations (issue 24).
  const mine = and(
    eq(notifications.userId, actor.id),
    actor.role === 'ADMIN' ? undefined : grantedAccountSql(actor.id, conversations.messagingAccountId),
  );
  const rows = await ctx.db
    .select({
      id: notifications.id,
      kind: notifications.kind,
      byEmail: notifications.byEmail,
      text: notifications.text,
      createdAt: notifications.createdAt,
      readAt: notifications.readAt,
      uuid: conversations.uuid,
    })
    .from(notifications)
    .innerJoin(conversations, eq(conversations.id, notifications.conversationId))
    .where(mine)
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(50);
  const [{ unread }] = await ctx.db
    .select({ unread: sql<number>`count(*)`.mapWith(Number) })
    .from(notifications)
    .innerJoin(conversations, eq(conversations.id, notifications.conversationId))
    .where(and(mine, isNull(notifications.readAt)));
  return {
    unread,
    notifications: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      byEmail: r.byEmail,
      text: r.text,
      conversationUuid: r.uuid,
      createdAt: r.createdAt.toISOString(),
      read: r.readAt !== null,
    })),
  };
}

export async function markNotificationsRead(ctx: AppContext, actor: Actor): Promise<void> {
  await ctx.db
    .update(notifications)
    .set({ readAt: new Date() })
    .where(and(eq(notifications.userId, actor.id), isNull(notifications.readAt)));
}

/** The detail's notes and contact: only for a teammate who may administer it (never a visitor). */
export async function readWorkspaceDetail(
  ctx: AppContext,
  actor: Actor | null,
  detail: { id: number; prospectId: number | null },
  canAdminister: boolean,
): Promise<{ notes: ConversationNote[]; contact: ContactView | null }> {
  if (!actor || !canAdminister) return { notes: [], contact: null };
  const [notes, contact] = await Promise.all([
    listNotes(ctx, detail.id),
    detail.prospectId === null ? webChatContact(ctx, actor, detail.id) : readContact(ctx, actor, detail.prospectId),
  ]);
  return { notes, contact };
}

/** A web chat's contact: there once the visitor typed an email or phone number (contacts/contact-capture.ts). */
async function webChatContact(ctx: AppContext, actor: Actor, conversationId: number): Promise<ContactView | null> {
  const [row] = await ctx.db.select({ contactId: conversations.contactId }).from(conversations).where(eq(conversations.id, conversationId));
  return row?.contactId ? readContactView(ctx, actor, row.contactId) : null;
}

/** The teammates a conversation may be assigned to: active ADMINs and the NORMAL users granted its account. */
export async function listAssignees(ctx: AppContext, conv: AccessibleConversation): Promise<{ email: string }[]> {
  return ctx.db
    .select({ email: users.email })
    .from(users)
    .where(mayWorkOn(ctx, conv))
    .orderBy(asc(users.email));
}
