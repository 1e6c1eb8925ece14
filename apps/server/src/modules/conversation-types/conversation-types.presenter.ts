import { readConversationTypeConfig } from '@sales-agent/shared/schemas/conversation-type-config';
import type {
  ConversationPhase,
  ConversationTypeDetail,
  ConversationTypeListItem,
} from '@sales-agent/shared/schemas/conversation-type';
import type { conversationPhases, conversationTypes, messagingAccounts } from '../../db/schema/index.ts';

type TypeRow = typeof conversationTypes.$inferSelect;
type PhaseRow = typeof conversationPhases.$inferSelect;
type AccountRow = typeof messagingAccounts.$inferSelect;

export function presentPhase(row: PhaseRow): ConversationPhase {
  return {
    id: row.id,
    index: row.index,
    prompt: row.prompt,
    transitionPrompt: row.transitionPrompt,
    followUpPrompt: row.followUpPrompt,
    conversationTypeId: row.conversationTypeId,
    conversationType: { id: row.conversationTypeId },
  };
}

/**
 * What an anonymous visitor or NORMAL user sees: enough to pick a type and start a conversation. The
 * label falls back to a neutral name, never to the role prompt (prompts stay on the server).
 */
export function presentPublicType(row: TypeRow, options: { visitor: boolean }): ConversationTypeListItem {
  // A type with a public title (issue 24) shows visitors that name, never its internal one; the team keeps the
  // internal title it knows the type by (filters, Make a Call).
  const title = (options.visitor ? readConversationTypeConfig(row.config).publicTitle : undefined) ?? row.title;
  return {
    id: row.id,
    title,
    label: title ?? `Conversation type ${row.id}`,
    initialMessage: row.initialMessage,
  };
}

/** Everything an ADMIN edits; phases sorted by index. */
export function presentAdminType(row: TypeRow, phases: PhaseRow[]): Omit<ConversationTypeDetail, 'messagingAccount' | 'knowledgeCollectionIds'> {
  return {
    id: row.id,
    title: row.title,
    label: row.title ?? row.rolePrompt,
    initialMessage: row.initialMessage,
    rolePrompt: row.rolePrompt,
    triggerConversationPrompt: row.triggerConversationPrompt,
    checkingPrompt: row.checkingPrompt,
    errorPrompt: row.errorPrompt,
    config: row.config,
    messagingAccountId: row.messagingAccountId,
    isPublic: row.isPublic,
    publicTitle: readConversationTypeConfig(row.config).publicTitle ?? null,
    conversation_phases: [...phases].sort((a, b) => a.index - b.index || a.id - b.id).map(presentPhase),
  };
}

/** The type's account without its token: id, type, page name and page id. */
export function presentTypeAccount(row: AccountRow | null): ConversationTypeDetail['messagingAccount'] {
  return row ? { id: row.id, type: row.type, pageName: row.pageName, pageId: row.pageId } : null;
}
