import type { ConversationListResponse } from '@sales-agent/shared/schemas/conversation';

/**
 * Unread marks of the inbox (issue 12) are each user's own, kept on the server (the list's `unread`, cleared
 * by PUT /api/conversation/{uuid}/read), so every device of a user and no colleague sees the same marks.
 *
 * The optimistic side: a cached list page with the row `uuid` shown read when the user has seen its latest
 * message (dateSent up to `upTo`), so the mark clears at once instead of after the request and a refetch.
 * A row whose latest message is newer than what was seen keeps its mark. Unchanged pages are returned as is.
 */
export function clearUnread(list: ConversationListResponse | undefined, uuid: string, upTo: string): ConversationListResponse | undefined {
  if (!list) return list;
  const index = list.conversations.findIndex((c) => c.uuid === uuid && c.unread && (!c.lastMessage || Date.parse(c.lastMessage.dateSent) <= Date.parse(upTo)));
  if (index === -1) return list;
  const conversations = list.conversations.slice();
  conversations[index] = { ...conversations[index], unread: false };
  return { ...list, conversations };
}
