import { and, asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { ACCOUNT_CONFIG_MAX, type messagingAccountSaveBody } from '@sales-agent/shared/schemas/messaging-account';
import type { Actor, AppContext } from '../../context.ts';
import {
  conversations,
  conversationTypes,
  messagingAccounts,
  userMessagingAccounts,
  users,
} from '../../db/schema/index.ts';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { configProblems, pageIdProblem } from '../../channels/account-config.ts';
import { removeCallRecording } from '../../voice/call-recording-file.ts';
import { sealConfigSecrets } from '../crm/crm-config.ts';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { canAccessAccount, canDeleteAccount } from './access.ts';
import { presentMessagingAccount } from './messaging-accounts.presenter.ts';

export type SaveMessagingAccountInput = z.output<typeof messagingAccountSaveBody>;

const accountNotFound = () => notFound('Messaging account not found', 'MESSAGING_ACCOUNT_NOT_FOUND');

/** Every account with its conversation type and granted users, by id (spec §2.7 list). */
export async function listMessagingAccounts(ctx: AppContext) {
  return loadAccounts(ctx);
}

export async function getMessagingAccount(ctx: AppContext, id: number) {
  const [account] = await loadAccounts(ctx, id);
  if (!account) throw accountNotFound();
  return account;
}

async function loadAccounts(ctx: AppContext, id?: number) {
  const query = ctx.db
    .select({ account: messagingAccounts, typeId: conversationTypes.id, typeTitle: conversationTypes.title })
    .from(messagingAccounts)
    .leftJoin(conversationTypes, eq(conversationTypes.id, messagingAccounts.conversationTypeId));
  const rows = await (id === undefined ? query : query.where(eq(messagingAccounts.id, id))).orderBy(asc(messagingAccounts.id));
  if (rows.length === 0) return [];
  const grants = await ctx.db
    .select({ id: userMessagingAccounts.id, accountId: userMessagingAccounts.messagingAccountId, email: users.email })
    .from(userMessagingAccounts)
    .innerJoin(users, eq(users.id, userMessagingAccounts.userId))
    .where(inArray(userMessagingAccounts.messagingAccountId, rows.map((r) => r.account.id)))
    .orderBy(asc(userMessagingAccounts.id));
  return rows.map(({ account, typeId, typeTitle }) =>
    presentMessagingAccount(
      ctx,
      account,
      typeId === null ? null : { id: typeId, title: typeTitle },
      grants.filter((g) => g.accountId === account.id),
    ),
  );
}

/**
 * Creates (no id) or edits an account. The access token is sealed before it is stored; on edit an empty
 * token keeps the stored one, so the form never needs to know it.
 */
export async function saveMessagingAccount(ctx: AppContext, actor: Actor, input: SaveMessagingAccountInput): Promise<{ id: number }> {
  const pageIdError = pageIdProblem(input.type, input.pageId);
  if (pageIdError) throw badRequest(pageIdError, 'VALIDATION_ERROR');
  if (input.conversationTypeId) {
    const [type] = await ctx.db
      .select({ id: conversationTypes.id })
      .from(conversationTypes)
      .where(eq(conversationTypes.id, input.conversationTypeId))
      .limit(1);
    if (!type) throw badRequest(`conversationTypeId: no conversation type has id ${input.conversationTypeId}`, 'CONVERSATION_TYPE_NOT_FOUND');
  }
  const fields = {
    type: input.type,
    pageId: input.pageId,
    pageName: input.pageName,
    ...(input.expirationDate === undefined ? {} : { expirationDate: input.expirationDate ? new Date(input.expirationDate) : null }),
    ...(input.conversationTypeId === undefined ? {} : { conversationTypeId: input.conversationTypeId }),
  };
  // A new token ends a "reconnect needed" state: the rejection was about the old one.
  const token = input.accessToken ? { accessTokenEncrypted: ctx.secrets.seal(input.accessToken), tokenRejectedAt: null } : {};

  try {
    if (input.id !== undefined) {
      const [updated] = await ctx.db
        .update(messagingAccounts)
        .set({ ...fields, ...token })
        .where(eq(messagingAccounts.id, input.id))
        .returning({ id: messagingAccounts.id });
      if (!updated) throw accountNotFound();
      return updated;
    }
    if (!token.accessTokenEncrypted) throw badRequest('accessToken: Access token is required', 'VALIDATION_ERROR');
    const [created] = await ctx.db
      .insert(messagingAccounts)
      // The ADMIN who creates an account owns it like a user who connects one (may delete it).
      .values({ ...fields, accessTokenEncrypted: token.accessTokenEncrypted, createdByUserId: actor.id })
      .returning({ id: messagingAccounts.id });
    return created;
  } catch (err) {
    // The unique index decides (no look-up first, which two saves at once would both pass).
    if (isUniqueViolation(err, TYPE_PAGE_ID_UNIQUE)) throw await pageIdTaken(ctx, input);
    throw err;
  }
}

/** The unique index on (type, pageId) (db/schema/playbooks.ts). */
const TYPE_PAGE_ID_UNIQUE = 'messaging_accounts_type_page_id_unique';

/** 409 naming the field and the account that already has this page id, so the admin can go and edit that one. */
async function pageIdTaken(ctx: AppContext, input: SaveMessagingAccountInput): Promise<AppError> {
  const [other] = await ctx.db
    .select({ id: messagingAccounts.id, pageName: messagingAccounts.pageName })
    .from(messagingAccounts)
    .where(and(eq(messagingAccounts.type, input.type), eq(messagingAccounts.pageId, input.pageId)))
    .limit(1);
  const which = other ? ` (ID ${other.id}, "${other.pageName}")` : '';
  return conflict(
    `Page id ${input.pageId} is already used by another ${input.type} account${which}. Edit that account instead, or enter another page id.`,
    'MESSAGING_ACCOUNT_EXISTS',
  );
}

/** Stores the account's config: the raw text, which must parse as a JSON object (spec §5 config editors). */
export async function saveMessagingAccountConfig(ctx: AppContext, id: number, text: unknown): Promise<void> {
  if (typeof text !== 'string' || text.trim() === '') throw badRequest('The configuration is empty; a JSON object was expected.', 'INVALID_JSON');
  if (text.length > ACCOUNT_CONFIG_MAX) throw badRequest('The configuration is too long.', 'INVALID_CONFIG');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`The configuration is not valid JSON: ${(err as Error).message}`, 'INVALID_JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The configuration must be a JSON object, e.g. {}', 'INVALID_CONFIG');
  }
  const [previous] = await ctx.db
    .select({ type: messagingAccounts.type, config: messagingAccounts.config })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, id))
    .limit(1);
  if (!previous) throw accountNotFound();
  const problems = configProblems(previous.type, value as Record<string, unknown>);
  if (problems.length > 0) throw badRequest(problems.join(' '), 'INVALID_CONFIG');
  let stored = text;
  if (previous.type === 'SMS_GATEWAY') {
    // The gateway's base URL is called by the server: the private-address rule of outbound calls (issue 29).
    const baseUrl = (value as Record<string, unknown>).baseUrl;
    if (baseUrl !== undefined) {
      const problem = typeof baseUrl === 'string' ? await outboundUrlProblem(baseUrl.trim(), { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS }) : 'baseUrl must be a string.';
      if (problem) throw badRequest(`Invalid configuration: baseUrl: ${problem}`, 'INVALID_CONFIG');
    }
    // The webhook signing key is a secret like the CRM key: sealed at rest, masked in every answer.
    stored = sealConfigSecrets(ctx, text, previous.config, 'signingKey', "the gateway's full signing key");
  }
  const [updated] = await ctx.db
    .update(messagingAccounts)
    .set({ config: stored })
    .where(eq(messagingAccounts.id, id))
    .returning({ id: messagingAccounts.id });
  if (!updated) throw accountNotFound();
}

/**
 * Deletes an account and, through the database's cascades (prospects → conversations → messages), every
 * conversation held on it. Allowed to an ADMIN and to the user who connected it (issue 13 item 3): the
 * account's conversations are shared by every user granted it, so a user who was only granted it may
 * remove their own grant (removeOwnGrant) but not the account. Call recordings are files in storage: they
 * are removed after the commit (removed first, a failed commit would leave conversations without them).
 */
export async function deleteMessagingAccount(ctx: AppContext, actor: Actor, id: number): Promise<void> {
  const [account] = await ctx.db
    .select({ id: messagingAccounts.id, createdByUserId: messagingAccounts.createdByUserId })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, id))
    .limit(1);
  if (!account) throw accountNotFound();
  if (!canDeleteAccount(actor, account)) {
    if (await canAccessAccount(ctx, actor, id)) {
      throw new AppError(
        403,
        'NOT_ACCOUNT_OWNER',
        'Only the person who connected this account or an administrator can delete it. You can remove it from your accounts instead.',
      );
    }
    throw forbidden('You do not have access to this messaging account.');
  }
  const gone = await ctx.db.transaction(async (tx) => {
    // The row lock holds off new prospects and conversations of the account (their foreign keys wait on it),
    // so the list below is exactly what the cascade deletes.
    const [locked] = await tx.select({ id: messagingAccounts.id }).from(messagingAccounts).where(eq(messagingAccounts.id, id)).for('update');
    if (!locked) throw accountNotFound();
    const held = await tx
      .select({ id: conversations.id, uuid: conversations.uuid, recordingUrl: conversations.recordingUrl })
      .from(conversations)
      .where(eq(conversations.messagingAccountId, id));
    await tx.delete(messagingAccounts).where(eq(messagingAccounts.id, id));
    return held;
  });
  // Every grant of the account went with it (issue 18: inbox streams re-read their viewers' grants).
  ctx.events.emit('grants.changed', { userId: null });
  // Open conversation screens learn that their conversation is gone.
  for (const conversation of gone) ctx.events.emit('conversation.changed', { conversationId: conversation.id, uuid: conversation.uuid });
  // A missing file is no error, and one that cannot be removed is logged: the account is gone either way.
  for (const conversation of gone) if (conversation.recordingUrl) await removeCallRecording(ctx, conversation.uuid);
}

/**
 * Removes the actor's own grant of an account (DELETE /api/user/messaging-accounts/{messagingAccountId}):
 * the account, its conversations and the other users' grants stay. 404 when the actor holds no grant.
 */
export async function removeOwnGrant(ctx: AppContext, actor: Actor, messagingAccountId: number): Promise<void> {
  const [deleted] = await ctx.db
    .delete(userMessagingAccounts)
    .where(and(eq(userMessagingAccounts.userId, actor.id), eq(userMessagingAccounts.messagingAccountId, messagingAccountId)))
    .returning({ id: userMessagingAccounts.id });
  if (!deleted) throw notFound('This account is not among your accounts.', 'PERMISSION_NOT_FOUND');
  ctx.events.emit('grants.changed', { userId: actor.id });
}
