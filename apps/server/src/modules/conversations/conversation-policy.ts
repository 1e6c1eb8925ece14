import { eq, inArray, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { conversations, userMessagingAccounts } from '../../db/schema/index.ts';
import { forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import { canAccessAccount } from '../messaging-accounts/access.ts';

/**
 * The conversation policy: who may see, change and administer a conversation (DESIGN.md §5,
 * docs/conversations.md). The rule is written here once per form it is needed in, side by side, and
 * conversation-policy.test.ts proves the forms agree on the same fixtures:
 * - TypeScript on values already read (`mayAdminister`, `maySee`): the routes (`loadConversationTo*`), the
 *   detail read (`viewAccess`) and the inbox stream (`inbox-access.ts`, against its cached grant set);
 * - SQL inside a bigger statement: the grant in the detail read (`grantedAccountSql`) and the list's filter
 *   (`listedSql`).
 *
 * The rule:
 * - a web chat (no prospect) is readable and writable (as the visitor) by anyone holding its uuid; only an
 *   ADMIN may change or delete it, or ask for a follow-up;
 * - a prospect conversation is visible to an ADMIN and to NORMAL users granted its messaging account; to
 *   everyone else it does not exist (404, never 403, so uuids and ids cannot be probed).
 * Numeric ids never grant access by themselves: every id route goes through `loadConversationToChange`.
 */
export interface AccessibleConversation {
  id: number;
  uuid: string;
  phase: number;
  prospectId: number | null;
  conversationTypeId: number | null;
  messagingAccountId: number | null;
  /** The viewer may change the phase/type, edit and delete messages, ask for a follow-up. */
  canAdminister: boolean;
}

const NOT_FOUND = 'Conversation not found';

async function loadBy(ctx: AppContext, where: ReturnType<typeof eq>) {
  const [row] = await ctx.db
    .select({
      id: conversations.id,
      uuid: conversations.uuid,
      phase: conversations.phase,
      prospectId: conversations.prospectId,
      conversationTypeId: conversations.conversationTypeId,
      messagingAccountId: conversations.messagingAccountId,
    })
    .from(conversations)
    .where(where)
    .limit(1);
  return row;
}

/**
 * May administer (change the phase/type, edit and delete messages, ask for a follow-up, and see it in the
 * inbox list and stream): an ADMIN always; a NORMAL user when the conversation is on a messaging account
 * granted to them (`granted`: whether they hold a grant on `messagingAccountId`); an anonymous visitor never.
 * A web chat has no account, so only an ADMIN administers it.
 */
export function mayAdminister(actor: Actor | null, conv: { messagingAccountId: number | null }, granted: boolean): boolean {
  if (!actor) return false;
  if (actor.role === 'ADMIN') return true;
  return conv.messagingAccountId !== null && granted;
}

/**
 * May see (read it, write to it as the visitor), given mayAdminister's answer: a web chat (no prospect)
 * anyone holding its uuid; a prospect conversation whoever may administer it.
 */
export function maySee(conv: { prospectId: number | null }, canAdminister: boolean): boolean {
  return conv.prospectId === null || canAdminister;
}

/** mayAdminister for a row just read: asks for the grant only when the answer depends on it. */
async function mayAdministerRow(ctx: AppContext, actor: Actor | null, messagingAccountId: number | null): Promise<boolean> {
  const needsGrant = actor !== null && actor.role !== 'ADMIN' && messagingAccountId !== null;
  const granted = needsGrant ? await canAccessAccount(ctx, actor, messagingAccountId) : false;
  return mayAdminister(actor, { messagingAccountId }, granted);
}

/** A conversation by uuid for reading (detail, live events, the visitor's messages); 404 when hidden. */
export async function loadConversationToView(ctx: AppContext, actor: Actor | null, uuid: string): Promise<AccessibleConversation> {
  const row = await loadBy(ctx, eq(conversations.uuid, uuid));
  if (!row) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
  const canAdminister = await mayAdministerRow(ctx, actor, row.messagingAccountId);
  return { ...row, canAdminister: assertViewable(row, canAdminister) };
}

/** 404 for a prospect conversation the viewer may not administer (it does not exist for them); else canAdminister. */
function assertViewable(row: { prospectId: number | null }, canAdminister: boolean): boolean {
  if (!maySee(row, canAdminister)) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
  return canAdminister;
}

/**
 * The same rule as loadConversationToView for a read that fetched the conversation and the viewer's grant in
 * one statement (the detail read, docs/performance.md "Conversation read"): `granted` is the value of
 * `grantedAccountSql` for that row. 404 when hidden; otherwise whether the viewer may administer it.
 */
export function viewAccess(
  actor: Actor | null,
  row: { prospectId: number | null; messagingAccountId: number | null },
  granted: boolean,
): boolean {
  return assertViewable(row, mayAdminister(actor, row, granted));
}

/**
 * SQL for canAccessAccount inside a bigger statement: true when the user `userId` (a placeholder or value;
 * null for an anonymous visitor, which matches nothing) holds a grant on the account in `accountId`.
 */
export function grantedAccountSql(userId: Placeholder | number | null, accountId: SQL | typeof conversations.messagingAccountId): SQL<boolean> {
  const uma = userMessagingAccounts;
  return sql<boolean>`exists (select 1 from ${uma} where ${uma.userId} = ${userId} and ${uma.messagingAccountId} = ${accountId})`;
}

/**
 * mayAdminister as the inbox list's filter, given the viewer's granted account ids read beforehand
 * (`grantedAccountIds`): an id list the planner can use with the list's indexes (docs/performance.md).
 * undefined (no filter) for an ADMIN; callers answer an empty page at once for an empty list.
 */
export function listedSql(granted: number[] | 'all'): SQL | undefined {
  return granted === 'all' ? undefined : inArray(conversations.messagingAccountId, granted);
}

/**
 * A conversation to change (by id or uuid). Anonymous → 401; a prospect conversation the user may not see
 * → 404; a web chat changed by a NORMAL user → 403.
 */
export async function loadConversationToChange(
  ctx: AppContext,
  actor: Actor | null,
  key: { id: number } | { uuid: string },
): Promise<AccessibleConversation> {
  if (!actor) throw unauthorized();
  const row = await loadBy(ctx, 'id' in key ? eq(conversations.id, key.id) : eq(conversations.uuid, key.uuid));
  if (!row) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
  const canAdminister = await mayAdministerRow(ctx, actor, row.messagingAccountId);
  if (!canAdminister) {
    if (row.prospectId !== null) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
    throw forbidden('Only an administrator can change a web chat.');
  }
  return { ...row, canAdminister };
}
