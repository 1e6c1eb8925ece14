import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AccountType } from '@sales-agent/shared/enums';
import type { ProspectConversation } from '@sales-agent/shared/schemas/conversation';
import { api, ApiError } from '../../../lib/api-client.ts';
import { showToast } from '../../../lib/toast.ts';
import { buildSimulation, type SimulationInput } from '../components/payloads.ts';

/** Spec §8.2 / §8.3: the exact notices. */
export const SIMULATION_SUCCESS = 'Webhook simulated successfully!';
export const SIMULATION_ERROR_PREFIX = 'Error simulating webhook: ';

/** Spec §7.4: the receiver select lists the messaging accounts (the account screens' query and cache). */
export { messagingAccountsQuery } from '../../messaging-accounts/api/messaging-accounts.ts';

/** What was sent: where, and the body, so the page can show it and find the conversation it started. */
export interface SimulationSent {
  channel: AccountType;
  accountId: number;
  senderId: string;
  url: string;
  body: unknown;
}

/**
 * Posts one simulated inbound message: Meta's payloads to the real webhook (spec §7.5; accepted unsigned from
 * an ADMIN's session), Twilio and gateway events to their ADMIN simulation endpoints. The notice is the spec's
 * text either way; the reason of a failure is the server's `error` sentence (spec §8.1).
 */
export function useSimulateWebhook(onSent: (sent: SimulationSent) => void) {
  return useMutation({
    mutationFn: async (input: SimulationInput): Promise<SimulationSent> => {
      const { url, body } = buildSimulation(input);
      await api.post(url, body);
      return { channel: input.channel, accountId: input.account.id, senderId: input.senderId.trim(), url, body };
    },
    onSuccess: (sent) => {
      showToast(SIMULATION_SUCCESS, 'success');
      onSent(sent);
    },
    onError: (err) => showToast(SIMULATION_ERROR_PREFIX + (err instanceof Error ? err.message : String(err)), 'error'),
  });
}

/** How long the page looks for the conversation the message started (the inbound job stores it within a second or two). */
const LOOKUP_INTERVAL_MS = 500;
const LOOKUP_ATTEMPTS = 60;

/**
 * The conversation the simulated prospect is in (GET /api/admin/conversation/by-prospect). The webhook is
 * processed by a job after the 200, so the page asks again every half second until it exists.
 */
export function useProspectConversation(sent: SimulationSent | null) {
  const client = useQueryClient();
  const queryKey = ['prospect-conversation', sent?.accountId, sent?.senderId, sent?.body];
  const query = useQuery({
    queryKey,
    enabled: sent !== null,
    queryFn: async (): Promise<ProspectConversation | null> => {
      try {
        return await api.get<ProspectConversation>('/api/admin/conversation/by-prospect', {
          messagingAccountId: sent!.accountId,
          externalId: sent!.senderId,
        });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    refetchInterval: (query) =>
      query.state.data || query.state.dataUpdateCount >= LOOKUP_ATTEMPTS || query.state.status === 'error' ? false : LOOKUP_INTERVAL_MS,
    staleTime: Infinity,
    retry: false,
  });
  // Between two polls nothing is fetching: "still looking" is "not found, attempts left".
  // The page re-renders after every poll, so the count read here is current.
  const attempts = client.getQueryState(queryKey)?.dataUpdateCount ?? 0;
  const isLooking = sent !== null && !query.data && !query.isError && attempts < LOOKUP_ATTEMPTS;
  return { data: query.data ?? null, isError: query.isError, error: query.error, isLooking };
}
