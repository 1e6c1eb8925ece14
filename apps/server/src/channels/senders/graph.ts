import { networkError, graphError, SEND_TIMEOUT_MS } from './errors.ts';
import type { ChannelAccount, ChannelEndpoints } from '../types.ts';

/** The Graph host of an account: Instagram Login tokens only work on graph.instagram.com (INSTAGRAM_GRAPH_URL). */
export function graphBase(endpoints: ChannelEndpoints, account: Pick<ChannelAccount, 'type' | 'config'>): string {
  const base = account.type === 'INSTAGRAM' && account.config.login === 'instagram' ? endpoints.INSTAGRAM_GRAPH_URL : endpoints.META_GRAPH_URL;
  return base.replace(/\/+$/, '');
}

/**
 * One Graph API call with the account's token as a Bearer header (never in the URL we build), a timeout, and
 * every failure turned into a classified, token-free ChannelSendError. `url` is absolute.
 */
export async function graphCall<T>(method: 'GET' | 'POST', url: string, token: string, body?: unknown): Promise<T> {
  const call = { method, url, secrets: [token] };
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    throw networkError(call, err);
  }
  if (!res.ok) throw graphError(call, res.status, text);
  try {
    return JSON.parse(text) as T;
  } catch {
    // 200 with a body that is not JSON: not what Graph does; treat as a server fault (transient).
    throw graphError(call, 502, text);
  }
}
