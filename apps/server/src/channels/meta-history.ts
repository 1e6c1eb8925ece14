import { graphBase, graphCall } from './senders/graph.ts';
import { configError } from './senders/errors.ts';
import type { ChannelAccount, ChannelEndpoints } from './types.ts';

/** One message of a thread read back from Meta. */
export interface ThreadMessage {
  externalId: string;
  text: string;
  fromProspect: boolean;
  createdTime: Date;
}

interface GraphMessage {
  id: string;
  message?: string;
  from?: { id?: string };
  created_time?: string;
}
interface GraphPage<T> {
  data?: T[];
  paging?: { next?: string };
}
type GraphConversation = { id: string; messages?: GraphPage<GraphMessage> };

/** A guard against a paging loop: 200 pages of 25 is far beyond any real DM thread. */
const MAX_PAGES = 200;

/**
 * Reads an Instagram or Messenger thread back from the Graph API (rebuild history, spec §2.13):
 * `GET /{version}/{page-or-ig-id}/conversations?platform=…&user_id=…&fields=messages{id,message,from,created_time}`,
 * following `paging.next` of the conversation list and of each conversation's `messages` edge. Answers the
 * thread oldest first; a message is the prospect's when it is `from` the prospect's id. Graph errors are
 * ChannelSendErrors (token-free), which the rebuild route answers as 502.
 */
export async function fetchMetaThread(endpoints: ChannelEndpoints, account: ChannelAccount, prospectId: string): Promise<ThreadMessage[]> {
  if (account.type !== 'INSTAGRAM' && account.type !== 'FACEBOOK') {
    throw configError('Only Instagram and Messenger threads can be read back.', 'NO_CHANNEL_HISTORY');
  }
  const base = graphBase(endpoints, account);
  const first = new URL(`${base}/${endpoints.META_GRAPH_VERSION}/${encodeURIComponent(account.pageId)}/conversations`);
  first.searchParams.set('platform', account.type === 'INSTAGRAM' ? 'instagram' : 'messenger');
  first.searchParams.set('user_id', prospectId);
  first.searchParams.set('fields', 'messages{id,message,from,created_time}');

  const byId = new Map<string, ThreadMessage>();
  const collect = (items: GraphMessage[] | undefined) => {
    for (const item of items ?? []) {
      if (!item.id || byId.has(item.id)) continue;
      const created = item.created_time ? new Date(item.created_time) : null;
      byId.set(item.id, {
        externalId: item.id,
        // A message without text is an attachment, sticker or story reply: keep its place in the thread.
        text: item.message ?? '[attachment]',
        fromProspect: item.from?.id === prospectId,
        createdTime: created && !Number.isNaN(created.getTime()) ? created : new Date(0),
      });
    }
  };

  let pages = 0;
  let next: string | null = first.toString();
  while (next && pages < MAX_PAGES) {
    pages += 1;
    const page: GraphPage<GraphConversation> = await graphCall('GET', next, account.accessToken);
    for (const conversation of page.data ?? []) {
      collect(conversation.messages?.data);
      let more = sameHost(conversation.messages?.paging?.next, base);
      while (more && pages < MAX_PAGES) {
        pages += 1;
        const messages: GraphPage<GraphMessage> = await graphCall('GET', more, account.accessToken);
        collect(messages.data);
        more = sameHost(messages.paging?.next, base);
      }
    }
    next = sameHost(page.paging?.next, base);
  }
  // Graph lists newest first; the conversation is stored oldest first (ties keep Graph's order reversed).
  return [...byId.values()].reverse().sort((a, b) => a.createdTime.getTime() - b.createdTime.getTime());
}

/** A paging link, only if it stays on the Graph host we called: the token must never go anywhere else. */
function sameHost(link: string | undefined, base: string): string | null {
  if (!link) return null;
  try {
    return new URL(link).origin === new URL(base).origin ? link : null;
  } catch {
    return null;
  }
}
