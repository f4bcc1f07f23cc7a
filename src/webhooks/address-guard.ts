/**
 * Where a webhook may post (docs/webhooks.md "Safety"): not to loopback, private, link-local,
 * shared (CGNAT), multicast, reserved or unspecified addresses, nor the cloud metadata addresses,
 * in any spelling (an IPv4 address mapped into or embedded in IPv6 is judged as that IPv4 address),
 * unless the operator allows private addresses (NAMAZU_WEBHOOK_ALLOW_PRIVATE). The literal URL is
 * checked at creation and every address a host name resolves to at each connection
 * (`AddressResolver`), so a name that later resolves to a private address (DNS rebinding) is refused
 * too.
 */
import type { LookupAddress } from 'node:dns';
import { lookup, Resolver } from 'node:dns/promises';
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
 * Names are judged again when they are resolved (`AddressResolver`).
 */
export function refusedHost(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return isRefusedAddress(bare);
  return isLocalhostName(bare);
}

/** The lookup of a name by the system (getaddrinfo: /etc/hosts, search domains, LAN names). */
export type SystemLookup = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

/** Where names are resolved: DNS servers (the system's by default) and the system's lookup. */
export interface NameSources {
  dnsServers?: string[];
  systemLookup?: SystemLookup;
}

export interface AddressResolverOptions extends NameSources {
  allowPrivate: boolean;
  /** A lookup's answer or failure comes within this long. */
  limitMs: number;
}

/**
 * System lookups at once. getaddrinfo holds one of libuv's four threads until the system's resolver
 * gives up (10 s and more), and an abort does not cancel it; the rest stay free for gunzip, scrypt.
 */
const SYSTEM_LOOKUPS_AT_ONCE = 2;

/** DNS's answers after which the system's lookup is asked: no such name, or no DNS server listening. */
const UNKNOWN_TO_DNS = new Set(['ENOTFOUND', 'ENODATA', 'ECONNREFUSED', 'EREFUSED']);

const systemLookup: SystemLookup = (hostname, family) => lookup(hostname, { family, all: true });

function timedOut(hostname: string, limitMs: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`the DNS lookup of ${hostname} did not answer within ${limitMs} ms`), {
    code: 'DNS_TIMEOUT',
  });
}

interface WaitingLookup {
  hostname: string;
  family: 0 | 4 | 6;
  since: number;
  settle: (answer: Promise<LookupAddress[]>) => void;
}

/**
 * The `lookup` of the sender's connections (docs/webhooks.md "Safety"): every address of a name,
 * refused when any is refused (unless private addresses are allowed), within a time limit. Names are
 * asked of DNS with c-ares, off libuv's thread pool, so that a name whose DNS never answers holds
 * nothing but its own attempts; only the names DNS does not know go to the system's lookup, bounded
 * (`SYSTEM_LOOKUPS_AT_ONCE`). One resolution per name at a time: callers share it.
 */
export class AddressResolver {
  private readonly dns: Resolver;
  private readonly systemLookup: SystemLookup;
  private readonly resolving = new Map<string, Promise<LookupAddress[]>>();
  private readonly waiting: WaitingLookup[] = [];
  private systemLookups = 0;

  constructor(private readonly options: AddressResolverOptions) {
    // A try of a third of the limit, then one of two thirds (c-ares doubles the wait): c-ares gives
    // up about as the limit passes, and the name can be asked again.
    this.dns = new Resolver({ timeout: Math.ceil(options.limitMs / 3), tries: 2 });
    if (options.dnsServers) this.dns.setServers(options.dnsServers);
    this.systemLookup = options.systemLookup ?? systemLookup;
  }

  /** A `lookup` for net/tls connections, as undici's `connect` passes it on. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.addresses(hostname, (options.family ?? 0) as 0 | 4 | 6).then(
      (addresses) => {
        const refused = !this.options.allowPrivate && addresses.some((a) => isRefusedAddress(a.address));
        if (refused || addresses.length === 0) {
          const error = new RefusedAddressError(`${hostname} resolves to a refused address`);
          return callback(error as NodeJS.ErrnoException, '', 0);
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  /** Ends the DNS queries under way. */
  close(): void {
    this.dns.cancel();
  }

  /** Every address of a name, or a failure, within the limit. */
  private addresses(hostname: string, family: 0 | 4 | 6): Promise<LookupAddress[]> {
    const literal = isIP(hostname);
    if (literal !== 0) return Promise.resolve([{ address: hostname, family: literal }]);
    if (isLocalhostName(hostname)) {
      const loopback = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
      return Promise.resolve(loopback.filter((a) => family === 0 || a.family === family));
    }
    const key = `${family} ${hostname.toLowerCase()}`;
    let shared = this.resolving.get(key);
    if (!shared) {
      shared = this.resolve(hostname, family).finally(() => this.resolving.delete(key));
      this.resolving.set(key, shared);
    }
    return this.withinLimit(shared, hostname);
  }

  /** A name's addresses from DNS, else (DNS does not know it) from the system's lookup. */
  private async resolve(hostname: string, family: 0 | 4 | 6): Promise<LookupAddress[]> {
    const asked = [
      family !== 6
        ? this.dns.resolve4(hostname).then((a) => a.map((address) => ({ address, family: 4 })))
        : null,
      family !== 4
        ? this.dns.resolve6(hostname).then((a) => a.map((address) => ({ address, family: 6 })))
        : null,
    ].filter((p) => p !== null);
    const answers = await Promise.allSettled(asked);
    const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (addresses.length > 0) return addresses;
    const errors = answers.map((a) => (a.status === 'rejected' ? (a.reason as NodeJS.ErrnoException) : null));
    const failure = errors.find((e) => e !== null && !UNKNOWN_TO_DNS.has(e.code ?? ''));
    if (failure?.code === 'ETIMEOUT') throw timedOut(hostname, this.options.limitMs);
    if (failure) throw failure;
    return this.lookUpBySystem(hostname, family);
  }

  /** The system's lookup, once a place among `SYSTEM_LOOKUPS_AT_ONCE` is free. */
  private lookUpBySystem(hostname: string, family: 0 | 4 | 6): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      const settle = (answer: Promise<LookupAddress[]>) => answer.then(resolve, reject);
      this.waiting.push({ hostname, family, since: performance.now(), settle });
      this.startSystemLookups();
    });
  }

  private startSystemLookups(): void {
    while (this.systemLookups < SYSTEM_LOOKUPS_AT_ONCE && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      // Whoever asked has given up: the thread is kept for a lookup someone waits for.
      if (performance.now() - next.since >= this.options.limitMs) {
        next.settle(Promise.reject(timedOut(next.hostname, this.options.limitMs)));
        continue;
      }
      this.systemLookups++;
      const answer = this.systemLookup(next.hostname, next.family);
      next.settle(answer);
      void answer
        .catch(() => {})
        .finally(() => {
          this.systemLookups--;
          this.startSystemLookups();
        });
    }
  }

  /** `answer`, or a DNS_TIMEOUT failure once the limit passes (the lookup itself goes on). */
  private withinLimit(answer: Promise<LookupAddress[]>, hostname: string): Promise<LookupAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut(hostname, this.options.limitMs)), this.options.limitMs);
    });
    return Promise.race([answer, limit]).finally(() => clearTimeout(timer));
  }
}
