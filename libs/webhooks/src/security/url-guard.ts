import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ipv6Bytes } from '@app/platform';

/**
 * Addresses a webhook may never reach unless WEBHOOK_ALLOW_PRIVATE_URLS=true: loopback,
 * private (RFC 1918, RFC 4193), carrier-grade NAT, link-local (which holds the cloud
 * metadata service 169.254.169.254 and fd00:ec2::254), multicast, reserved and
 * "this network" ranges, and IPv4 embedded in IPv6 (mapped, NAT64) is checked as IPv4.
 */
const BLOCKED = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
    ['2001:db8::', 32],
    ['100::', 64],
    ['64:ff9b:1::', 48],
  ];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

const dotted = (b: readonly number[], at: number): string => b.slice(at, at + 4).join('.');

/**
 * The IPv4 address an IPv6 address carries, where a translator or the OS may connect to
 * it: IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, deprecated), SIIT
 * (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  if (b === undefined) return undefined;
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return dotted(b, 12); // ::ffff:a.b.c.d
  if (zero(0, 12)) return dotted(b, 12); // ::a.b.c.d (including :: and ::1, checked as 0.0.0.x)
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return dotted(b, 12); // ::ffff:0:a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return dotted(b, 12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return dotted(b, 2); // 2002:AABB:CCDD::/16
  return undefined;
}

/** True when `address` (an IP literal) is loopback, private, link-local, metadata or otherwise not public. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== undefined) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(bare, 'ipv6');
  }
  return true; // not an IP at all: refuse rather than guess
}

export type UrlProblem = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

export interface UrlPolicy {
  readonly allowPrivateUrls: boolean;
  readonly requireHttps: boolean;
}

/** Checks that need no DNS: scheme, shape, literal addresses. */
export function checkUrlShape(raw: string, policy: UrlPolicy): UrlProblem {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute http(s) URL' };
  }
  if (raw.length > 2048) return { ok: false, reason: 'url must be at most 2048 characters' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'url must be an https URL' };
  if (policy.requireHttps && url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'url must not contain credentials' };
  if (url.hostname === '') return { ok: false, reason: 'url must have a host' };
  if (!policy.allowPrivateUrls) {
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
    if (isIP(host) !== 0 && isBlockedAddress(host)) {
      return { ok: false, reason: 'url must not point to a private, loopback, link-local or metadata address' };
    }
    if (/^localhost$|\.localhost$|\.internal$|\.local$/i.test(host)) {
      return { ok: false, reason: 'url must not point to a private, loopback, link-local or metadata address' };
    }
  }
  return { ok: true, url };
}

export type Resolver = (hostname: string) => Promise<readonly string[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) reject(err);
      else resolve(addresses.map((a) => a.address));
    });
  });

/** Full check, resolving the host: every address it resolves to must be public. */
export async function checkUrl(raw: string, policy: UrlPolicy, resolver: Resolver = systemResolver): Promise<UrlProblem> {
  const shape = checkUrlShape(raw, policy);
  if (!shape.ok || policy.allowPrivateUrls) return shape;
  const host = shape.url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return shape;
  let addresses: readonly string[];
  try {
    addresses = await resolver(host);
  } catch {
    return { ok: false, reason: `url host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `url host ${host} does not resolve` };
  if (addresses.some(isBlockedAddress)) {
    return { ok: false, reason: 'url must not point to a private, loopback, link-local or metadata address' };
  }
  return shape;
}

/** Error raised by `guardedLookup` when a host resolves to a blocked address at delivery time. */
export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor(host: string, address: string) {
    super(`${host} resolved to ${address}, a private, loopback, link-local or metadata address`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses blocked addresses. The check runs on the
 * very address the socket connects to, so DNS rebinding between the registration check
 * and the delivery cannot reach an internal host.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, []);
    const blocked = addresses.find((a) => isBlockedAddress(a.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), []);
    if (options.all === true) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
