import type { LeadFieldValue } from '@sales-agent/shared/schemas/lead-fields';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import type { ConversationRef } from './conversation-changes.ts';
import { conversationKeys } from './conversations.ts';

/** A person corrects the lead fields the agent recorded (issue 22); null clears one. */
export const useSaveLeadFields = () =>
  useWrite({
    write: ({ conversation, fields }: { conversation: ConversationRef; fields: Record<string, LeadFieldValue | null> }) =>
      api.put<{ message: string }>(`/api/conversation/${conversation.id}/lead-fields`, { fields }),
    refreshes: (vars) => [conversationKeys.detail(vars.conversation.uuid)],
  });
