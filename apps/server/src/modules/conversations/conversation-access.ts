import { eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context.ts';
import { conversations, userMessagingAccounts } from '../../db/schema/index.ts';
import { forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import { canAccessAccount } from '../messaging-accounts/access.ts';

/**
 * Who may see and change a conversation (DESIGN.md §5, docs/conversations.md):
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

async function mayAdminister(ctx: AppContext, actor: Actor | null, messagingAccountId: number | null): Promise<boolean> {
  if (!actor) return false;
  if (actor.role === 'ADMIN') return true;
  if (messagingAccountId === null) return false;
  return canAccessAccount(ctx, actor, messagingAccountId);
}

/** A conversation by uuid for reading (detail, live events, the visitor's messages); 404 when hidden. */
export async function loadConversationToView(ctx: AppContext, actor: Actor | null, uuid: string): Promise<AccessibleConversation> {
  const row = await loadBy(ctx, eq(conversations.uuid, uuid));
  if (!row) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
  const canAdminister = await mayAdminister(ctx, actor, row.messagingAccountId);
  return { ...row, canAdminister: assertViewable(row, canAdminister) };
}

/** 404 for a prospect conversation the viewer may not administer (it does not exist for them); else canAdminister. */
function assertViewable(row: { prospectId: number | null }, canAdminister: boolean): boolean {
  if (row.prospectId !== null && !canAdminister) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
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
  const canAdminister = !actor ? false : actor.role === 'ADMIN' ? true : row.messagingAccountId !== null && granted;
  return assertViewable(row, canAdminister);
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
  const canAdminister = await mayAdminister(ctx, actor, row.messagingAccountId);
  if (!canAdminister) {
    if (row.prospectId !== null) throw notFound(NOT_FOUND, 'CONVERSATION_NOT_FOUND');
    throw forbidden('Only an administrator can change a web chat.');
  }
  return { ...row, canAdminister };
}
