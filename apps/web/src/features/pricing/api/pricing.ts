import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { TRUNCATE } from '@sales-agent/shared/limits';
import type { ConversationTypeListItem } from '@sales-agent/shared/schemas/conversation-type';
import type { PricingResult } from '@sales-agent/shared/schemas/pricing';
import { truncate } from '@sales-agent/shared/truncate';
import { api } from '../../../lib/api-client.ts';
import { conversationTypeKeys } from '../../conversation-types/api/conversation-types.ts';

export const pricingKeys = { result: (inputs: PricingInputs) => ['pricing', inputs] as const };

export type { PricingResult };

export interface PricingInputs {
  systemPromptLength: number;
  userPromptLength: number;
  messagesLength: number;
  messagesPerMinute: number;
}

/** Spec §7.5: the server answers the costs of ONE minute; the page scales them. */
export const pricingQuery = (inputs: PricingInputs) =>
  queryOptions({
    queryKey: pricingKeys.result(inputs),
    queryFn: () => api.get<PricingResult>('/api/admin/pricing/conversation', { ...inputs }),
    placeholderData: keepPreviousData,
  });

export interface PromptGroup {
  group: string;
  items: { value: string; label: string; length: number }[];
}

/**
 * Spec §2.8: the prompts an admin can measure — each type's role prompt and its phase prompts, labels
 * cut to 70 characters (spec §9). The value keeps the full length.
 */
export const pricingPromptsQuery = () =>
  queryOptions({
    queryKey: conversationTypeKeys.pricingPrompts(),
    queryFn: async (): Promise<PromptGroup[]> => {
      const types = await api.get<ConversationTypeListItem[]>('/api/conversation-type/listt');
      return types.map((type) => ({
        group: `#${type.id} ${truncate(type.title ?? type.label, TRUNCATE.pricingPrompt)}`,
        items: [
          {
            value: `type-${type.id}`,
            label: `Role prompt: ${truncate(type.rolePrompt ?? '', TRUNCATE.pricingPrompt)}`,
            length: (type.rolePrompt ?? '').length,
          },
          ...(type.conversation_phases ?? []).map((phase) => ({
            value: `phase-${phase.id}`,
            label: `Phase ${phase.index}: ${truncate(phase.prompt, TRUNCATE.pricingPrompt)}`,
            length: phase.prompt.length,
          })),
        ],
      }));
    },
  });
