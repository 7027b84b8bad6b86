import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4Ranges = (cidrs: readonly string[]): Array<[IPv4, number]> => cidrs.map((c) => ipaddr.IPv4.parseCIDR(c));
const v6Ranges = (cidrs: readonly string[]): Array<[IPv6, number]> => cidrs.map((c) => ipaddr.IPv6.parseCIDR(c));

/**
 * Addresses a webhook may never reach unless WEBHOOK_ALLOW_PRIVATE_URLS=true: loopback,
 * private (RFC 1918, RFC 4193), carrier-grade NAT, link-local (which holds the cloud
 * metadata service 169.254.169.254 and fd00:ec2::254), multicast, reserved and
 * "this network" ranges, and IPv4 embedded in IPv6 (mapped, NAT64) is checked as IPv4.
 * Listed explicitly rather than ipaddr.js's `range()`, whose "reserved" also holds public
 * anycast services.
 */
const BLOCKED_V4 = v4Ranges([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
]);
const BLOCKED_V6 = v6Ranges([
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '2001:db8::/32',
  '100::/64',
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215): the translator's IPv4 may sit anywhere in it
]);

/**
 * Where an IPv6 address carries an IPv4 address a translator or the OS may connect to:
 * [range, byte offset of the IPv4 address]. IPv4-mapped (::ffff:0:0/96), IPv4-compatible
 * (::/96, deprecated; also :: and ::1, checked as 0.0.0.x), SIIT (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16).
 */
const EMBEDDING: ReadonlyArray<readonly [[IPv6, number], number]> = [
  [ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), 12],
  [ipaddr.IPv6.parseCIDR('::/96'), 12],
  [ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), 12],
  [ipaddr.IPv6.parseCIDR('64:ff9b::/96'), 12],
  [ipaddr.IPv6.parseCIDR('2002::/16'), 2],
];

function embeddedIpv4(address: IPv6): IPv4 | undefined {
  for (const [range, at] of EMBEDDING) {
    if (address.match(range)) return new ipaddr.IPv4(address.toByteArray().slice(at, at + 4));
  }
  return undefined;
}

/** True when `address` (an IP literal) is loopback, private, link-local, metadata or otherwise not public. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // node's strict syntax decides what is an address (ipaddr.js also reads 127.1, 0x7f.0.0.1, ...)
  const family = isIP(bare);
  if (family === 0) return true; // not an IP at all: refuse rather than guess
  if (family === 4) return isBlockedV4(ipaddr.IPv4.parse(bare));
  const v6 = ipaddr.IPv6.parse(bare);
  const v4 = embeddedIpv4(v6);
  if (v4 !== undefined) return isBlockedV4(v4);
  return BLOCKED_V6.some((range) => v6.match(range));
}

function isBlockedV4(address: IPv4): boolean {
  return BLOCKED_V4.some((range) => address.match(range));
}

export type UrlProblem = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

export interface UrlPolicy {
  readonly allowPrivateUrls: boolean;
  readonly requireHttps: boolean;
}

/**
 * C0 controls (NUL, TAB, LF, CR...), DEL and C1 controls. The URL parser silently drops
 * TAB/LF/CR and percent-encodes the others, so a URL holding one would be delivered to
 * another address than the one stored and shown (and echoed raw into logs and bodies).
 * Percent-encoded ones (`%0D%0A`) are kept: they are sent exactly as shown.
 */
function hasControlCharacter(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Checks that need no DNS: scheme, shape, literal addresses. */
export function checkUrlShape(raw: string, policy: UrlPolicy): UrlProblem {
  if (hasControlCharacter(raw)) {
    return { ok: false, reason: 'url must not contain control characters (CR, LF, TAB, NUL, DEL, C1)' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute http(s) URL' };
  }
  if (raw.length > 2048) return { ok: false, reason: 'url must be at most 2048 characters' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: policy.requireHttps ? 'url must be an https URL' : 'url must be an http or https URL' };
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
