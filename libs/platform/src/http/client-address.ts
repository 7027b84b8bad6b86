import ipaddr from 'ipaddr.js';

/**
 * The unit a client address is limited by: an IPv4 address (IPv4-mapped IPv6 included) as
 * it is, an IPv6 address by its /64 — one subscriber's network; per /128, anyone with a /64
 * would have 2^64 budgets. Give it `request.ip`, which honours TRUST_PROXY.
 */
export function clientAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip); // ::ffff:a.b.c.d becomes a.b.c.d
  if (address instanceof ipaddr.IPv4) return address.toString();
  const network = address.parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}
