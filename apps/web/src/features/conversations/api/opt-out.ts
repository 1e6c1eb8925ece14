import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import type { ConversationRef } from './conversation-changes.ts';
import { conversationKeys } from './conversations.ts';

/** Clears a prospect's opt-out (issue 23): a person's decision, so it carries a note. */
export const useClearOptOut = () =>
  useWrite({
    write: ({ conversation, note }: { conversation: ConversationRef; note: string }) =>
      api.post<{ message: string }>(`/api/conversation/${conversation.id}/do-not-contact/clear`, { note }),
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid), conversationKeys.lists()],
  });
