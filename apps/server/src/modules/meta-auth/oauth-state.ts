import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../../lib/errors.ts';

/** How long an OAuth round trip may take before its state is refused. */
export const STATE_TTL_MS = 10 * 60_000;
/** The httpOnly cookie holding the nonce of the one OAuth round trip this browser has under way. */
export const STATE_COOKIE = 'sa_oauth_nonce';

export type OAuthPurpose = 'LOGIN' | 'INSTAGRAM' | 'FACEBOOK' | 'WHATSAPP';

interface StatePayload {
  /** What the round trip is for: a state issued for login cannot finish a connect, and the reverse. */
  p: OAuthPurpose;
  /** The signed-in user who started it (null for login); another session cannot finish it. */
  u: number | null;
  n: string;
  e: number;
}

const sign = (secret: string, data: string) => createHmac('sha256', `oauth-state:${secret}`).update(data).digest('base64url');

/**
 * Issues the OAuth `state`: signed (HMAC under APP_SECRET), short-lived, bound to the purpose and the
 * session's user, and to a nonce that also goes into an httpOnly cookie. The return trip must bring both;
 * the cookie is cleared on use, so a state works once (CSRF and replay protection of RFC 6749 §10.12).
 */
export function issueState(secret: string, purpose: OAuthPurpose, userId: number | null, now = Date.now()) {
  const nonce = randomBytes(16).toString('base64url');
  const data = Buffer.from(JSON.stringify({ p: purpose, u: userId, n: nonce, e: now + STATE_TTL_MS } satisfies StatePayload)).toString('base64url');
  return { state: `${data}.${sign(secret, data)}`, nonce };
}

const invalid = () => badRequest('The connection request has expired or was not started here. Please try again.', 'INVALID_OAUTH_STATE');

/** Checks a returned state against the purpose, the session's user and the nonce cookie; throws 400 otherwise. */
export function verifyState(
  secret: string,
  state: string | undefined,
  expected: { purpose: OAuthPurpose; userId: number | null; nonce: string | undefined },
  now = Date.now(),
): void {
  if (!state || !expected.nonce) throw invalid();
  const [data, mac] = state.split('.');
  if (!data || !mac) throw invalid();
  const good = Buffer.from(sign(secret, data));
  const given = Buffer.from(mac);
  if (good.length !== given.length || !timingSafeEqual(good, given)) throw invalid();
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as StatePayload;
  } catch {
    throw invalid();
  }
  if (payload.e < now || payload.p !== expected.purpose || payload.u !== expected.userId || payload.n !== expected.nonce) throw invalid();
}
