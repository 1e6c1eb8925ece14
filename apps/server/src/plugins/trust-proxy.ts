import type { AppConfig } from '../config/env.ts';

/**
 * Fastify's `trustProxy` for TRUST_PROXY (docs/deployment.md "Behind a proxy"). A hop count becomes a function
 * trusting that many hops from the connection inwards: the installed Fastify answers a bare number with "trust
 * nothing" (it cannot check the peer), which made `TRUST_PROXY=1` count every client behind the proxy as one.
 * `true` and address lists go through as they are (Fastify compiles the list with proxy-addr).
 */
export function trustProxyOption(value: AppConfig['TRUST_PROXY']): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof value === 'number') return (_address, hop) => hop < value;
  return value;
}
