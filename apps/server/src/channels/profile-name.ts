import type { ChannelEndpoints } from './types.ts';
import type { LiveAccount } from './accounts.ts';

/**
 * The display name Meta gives a new Instagram or Messenger prospect: Instagram's `username` (or `name`),
 * Messenger's `name`, read with the account's token (`GET /{id}?fields=…`). Best effort: webhooks carry no
 * name, and a prospect without one is shown by its short id, so any failure answers null.
 */
export async function fetchProfileName(endpoints: ChannelEndpoints, account: LiveAccount, userId: string, timeoutMs = 5_000): Promise<string | null> {
  if (account.type !== 'INSTAGRAM' && account.type !== 'FACEBOOK') return null;
  const base = account.type === 'INSTAGRAM' && account.config.login === 'instagram' ? endpoints.INSTAGRAM_GRAPH_URL : endpoints.META_GRAPH_URL;
  const fields = account.type === 'INSTAGRAM' ? 'name,username' : 'name';
  const url = `${base.replace(/\/$/, '')}/${endpoints.META_GRAPH_VERSION}/${encodeURIComponent(userId)}?fields=${fields}`;
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${account.accessToken}` }, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return null;
    const body = (await response.json()) as { name?: unknown; username?: unknown };
    const name = typeof body.username === 'string' && body.username ? body.username : typeof body.name === 'string' ? body.name : null;
    return name ? name.slice(0, 200) : null;
  } catch {
    return null;
  }
}
