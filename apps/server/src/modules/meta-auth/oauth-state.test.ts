import { describe, expect, it } from 'vitest';
import { issueState, STATE_TTL_MS, verifyState } from './oauth-state.ts';

const SECRET = 'a-secret-of-at-least-16';

describe('OAuth state', () => {
  it('verifies for the same purpose, user and nonce within its lifetime', () => {
    const { state, nonce } = issueState(SECRET, 'FACEBOOK', 7, 1_000);
    expect(() => verifyState(SECRET, state, { purpose: 'FACEBOOK', userId: 7, nonce }, 1_000 + STATE_TTL_MS - 1)).not.toThrow();
  });

  it('refuses an expired state, another purpose, user, nonce or secret, and a tampered payload', () => {
    const { state, nonce } = issueState(SECRET, 'FACEBOOK', 7, 1_000);
    const ok = { purpose: 'FACEBOOK' as const, userId: 7, nonce };
    const refused = (fn: () => void) => expect(fn).toThrow(/expired or was not started here/);
    refused(() => verifyState(SECRET, state, ok, 1_000 + STATE_TTL_MS + 1));
    refused(() => verifyState(SECRET, state, { ...ok, purpose: 'WHATSAPP' }, 1_000));
    refused(() => verifyState(SECRET, state, { ...ok, userId: 8 }, 1_000));
    refused(() => verifyState(SECRET, state, { ...ok, nonce: 'other' }, 1_000));
    refused(() => verifyState(SECRET, state, { ...ok, nonce: undefined }, 1_000));
    refused(() => verifyState('another-secret-of-16', state, ok, 1_000));
    const [data, mac] = state.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(data, 'base64url').toString()), u: 8 })).toString('base64url');
    refused(() => verifyState(SECRET, `${forged}.${mac}`, { ...ok, userId: 8 }, 1_000));
    refused(() => verifyState(SECRET, undefined, ok, 1_000));
  });
});
