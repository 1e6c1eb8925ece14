import { type AnyPgColumn, boolean, index, integer, pgTable, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users.ts';
import { serialId, timestampTz, timestampNow, ownedBy, optionalRef } from './columns.ts';

/** A sales playbook (spec §3 "Conversation type", DESIGN.md §6). `config` is JSON text. */
export const conversationTypes = pgTable('conversation_types', {
  id: serialId(),
  title: text(),
  rolePrompt: text().notNull(),
  triggerConversationPrompt: text(),
  checkingPrompt: text(),
  errorPrompt: text().notNull(),
  initialMessage: text(),
  config: text().notNull().default('{}'),
  messagingAccountId: optionalRef((): AnyPgColumn => messagingAccounts.id),
  /**
   * Listed on the public start page and startable by visitors (issue 12). New types default to public;
   * '[D] …' duplicates are created private, so an admin's working copy never shows to visitors.
   */
  isPublic: boolean().notNull().default(true),
  createdAt: timestampNow(),
});

export const conversationPhases = pgTable(
  'conversation_phases',
  {
    id: serialId(),
    conversationTypeId: ownedBy(() => conversationTypes.id),
    index: integer().notNull(),
    prompt: text().notNull(),
    transitionPrompt: text().notNull(),
    followUpPrompt: text(),
  },
  (t) => [index().on(t.conversationTypeId, t.index)],
);

/**
 * A connected page / number (spec §3 "Messaging account"). The access token is stored encrypted
 * (AES-256-GCM, see lib/crypto.ts) and never leaves the server in full.
 */
export const messagingAccounts = pgTable(
  'messaging_accounts',
  {
    id: serialId(),
    type: text({ enum: ['INSTAGRAM', 'FACEBOOK', 'TWILIO', 'WHATSAPP', 'SMS_GATEWAY'] }).notNull(),
    accessTokenEncrypted: text().notNull(),
    pageId: text().notNull(),
    pageName: text().notNull(),
    expirationDate: timestampTz(),
    conversationTypeId: optionalRef((): AnyPgColumn => conversationTypes.id),
    config: text().notNull().default('{}'),
    /** Who connected (or created) the account: they and ADMINs may delete it; granted users may not. */
    createdByUserId: optionalRef(() => users.id),
    /**
     * When Meta last rejected the token (code 190: revoked, password changed, expired). Set by the token
     * refresh job or a sender, cleared when a new token is stored; screens show "reconnect needed" while set.
     */
    tokenRejectedAt: timestampTz(),
    createdAt: timestampNow(),
  },
  // One account per page/number of a type: inbound webhooks find their account by (type, pageId), and two
  // matches would split a prospect's messages between them (docs/messaging-accounts.md).
  (t) => [uniqueIndex('messaging_accounts_type_page_id_unique').on(t.type, t.pageId)],
);

/** Which NORMAL user may see which account's conversations (spec §2.10). */
export const userMessagingAccounts = pgTable(
  'user_messaging_accounts',
  {
    id: serialId(),
    userId: ownedBy(() => users.id),
    messagingAccountId: ownedBy(() => messagingAccounts.id),
    createdAt: timestampNow(),
  },
  (t) => [unique().on(t.userId, t.messagingAccountId), index().on(t.messagingAccountId)],
);
