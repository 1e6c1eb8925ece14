import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The private-address rule of outbound calls to URLs an ADMIN typed (docs/security.md "Outbound URLs"): such a
 * URL must be http(s) and every address its host resolves to must be public unicast — not loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata service, fe80::/10), carrier-grade NAT,
 * multicast, reserved or unspecified, IPv4-mapped IPv6 included. The host is resolved before the check (a
 * name can point anywhere), at save and again before each call. `ALLOW_PRIVATE_URLS=true` lifts the rule for
 * a gateway on the own network (and for tests with loopback fakes).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** null when `url` may be called; otherwise a sentence saying why not. */
export async function outboundUrlProblem(url: string, options: { allowPrivate: boolean }): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not a URL.`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${parsed.origin} must be an http or https URL.`;
  if (options.allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return `${host} could not be resolved.`;
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    return `${host} is a private, loopback or link-local address; only public addresses may be called (set ALLOW_PRIVATE_URLS=true to allow a server on your own network).`;
  }
  return null;
}
