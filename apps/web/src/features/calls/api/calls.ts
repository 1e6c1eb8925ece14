import { queryOptions } from '@tanstack/react-query';
import type { CallInfo, PlaceCallBody } from '@sales-agent/shared/schemas/call';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';
import { conversationKeys } from '../../conversations/api/conversations.ts';

/** Spec §7.3 POST /api/admin/call/{phone}: places the call and answers the new conversation's uuid at once. */
export const placeCall = (phone: string, body: PlaceCallBody) =>
  api.post<{ uuid: string }>(`/api/admin/call/${encodeURIComponent(phone)}`, body);

/**
 * Places a call (issue 24): a refusal is a toast and stays on the form (the page shows the hook's error); on
 * success the page opens the live conversation (no toast).
 */
export const usePlaceCall = () =>
  useWrite({
    write: ({ phone, body }: { phone: string; body: PlaceCallBody }) => placeCall(phone, body),
    notice: '',
    refreshes: () => [conversationKeys.lists()],
  });

/**
 * The call behind a conversation (null for chats). Under the conversation's query key, so the detail page's
 * live events and 10 s poll refresh it together with the messages.
 */
export const callInfoQuery = (uuid: string) =>
  queryOptions({
    queryKey: conversationKeys.call(uuid),
    queryFn: () => api.get<CallInfo>(`/api/conversation/${uuid}/call`),
    // Polled only while the line is open (events refresh it anyway); chats and ended calls are left alone.
    refetchInterval: (query) => (isLive(query.state.data) ? 10_000 : false),
  });

const LIVE = new Set(['queued', 'initiated', 'ringing', 'in-progress']);
const isLive = (info: CallInfo | undefined) => !!info?.call && LIVE.has(info.call.status ?? '');
