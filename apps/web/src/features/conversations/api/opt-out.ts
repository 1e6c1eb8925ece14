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

/** Records (or withdraws) the prospect's WhatsApp opt-in (issue 23), with a note saying where it was given. */
export const useRecordConsent = () =>
  useWrite({
    write: ({ conversation, granted, note }: { conversation: ConversationRef; granted: boolean; note: string }) =>
      api.post<{ message: string }>(`/api/conversation/${conversation.id}/consent`, { channel: 'whatsapp', granted, note }),
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid)],
  });
