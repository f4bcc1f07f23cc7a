/**
 * Where a webhook may post (docs/webhooks.md "Safety"): not to loopback, private, link-local,
 * shared (CGNAT), multicast, reserved or unspecified addresses, nor the cloud metadata addresses,
 * in any spelling (an IPv4 address mapped into or embedded in IPv6 is judged as that IPv4 address),
 * unless the operator allows private addresses (NAMAZU_WEBHOOK_ALLOW_PRIVATE). The literal URL is
 * checked at creation and every address a host name resolves to at each connection, so a name that
 * later resolves to a private address (DNS rebinding) is refused too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with the metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, with the broadcast address
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['fc00::', 7], // unique local, with the metadata address fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), or null. */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  const compatible = groups.slice(0, 6).every((g) => g === 0) && (groups[6]! !== 0 || groups[7]! > 1);
  if (!mapped && !nat64 && !compatible) return null;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or null. */
function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text =
      text.slice(0, -dotted[1]!.length) +
      `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const missing = 8 - front.length - back.length;
  if (tail === undefined ? front.length !== 8 : missing < 0) return null;
  const groups = [...front, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...back].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Whether an IP address is one a webhook may not reach (without the operator's allowance). */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== null) return refused.check(v4, 'ipv4');
  return refused.check(address, 'ipv6');
}

/** A host name every resolver answers with loopback (RFC 6761 §6.3). */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export class RefusedAddressError extends Error {
  readonly code = 'ADDRESS_REFUSED';
}

/**
 * The refusal of a URL's host as written: an IP literal (bracketed for IPv6) or a localhost name.
 * Names are judged again when they are resolved (`guardedLookup`).
 */
export function refusedHost(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return isRefusedAddress(bare);
  return isLocalhostName(bare);
}

/**
 * A `lookup` for http(s).request: resolves as Node does and refuses the connection when any address
 * of the name is refused (the connection would otherwise go to whichever the resolver put first).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const bad = addresses.find((a) => isRefusedAddress(a.address));
    if (bad || addresses.length === 0) {
      const error = new RefusedAddressError(`${hostname} resolves to a refused address`);
      return callback(error as NodeJS.ErrnoException, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
