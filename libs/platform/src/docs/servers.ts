import ipaddr from 'ipaddr.js';
import type { FastifyRequest } from 'fastify';
import { type PlatformConfig, parsePublicUrl } from '../config/platform-config';

/** One DNS label (underscores too: container and compose service names have them). */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
/** `host`, `host:port`, `[v6]` or `[v6]:port`, as a Host header may carry them. */
const HOST = new RegExp(`^(?:(${LABEL}(?:\\.${LABEL})*)|\\[([0-9a-f:.]{2,45})\\])(?::(\\d{1,5}))?$`, 'i');

/**
 * `value` as the authority of a URL (lowercase), or undefined when it is not a host name or
 * an IP literal with an optional port. A Host header is whatever the client wrote; this is
 * what keeps one from putting a path, a user, a script or a second URL into the document.
 */
export function parseAuthority(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 261) return undefined;
  const match = HOST.exec(value);
  if (!match) return undefined;
  const [, name, v6, port] = match;
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) return undefined;
  if (v6 !== undefined && !ipaddr.IPv6.isValid(v6)) return undefined;
  if (name !== undefined && name.length > 253) return undefined;
  return value.toLowerCase();
}

/** The listen address as an authority: a wildcard (0.0.0.0, ::) as `localhost`. */
function listenAuthority(config: PlatformConfig): string {
  const host = config.HOST.trim();
  let name: string;
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '[::]') name = 'localhost';
  else if (ipaddr.IPv6.isValid(host)) name = `[${host}]`;
  else name = parseAuthority(host) ?? 'localhost';
  return `${name}:${config.port}`;
}

/**
 * The base URL of the OpenAPI document's `servers`: the service's configured public URL
 * (`*_PUBLIC_URL`), else the origin the request was made to — its Host (X-Forwarded-Host
 * and X-Forwarded-Proto only from a peer TRUST_PROXY trusts: Fastify's `request.host` and
 * `request.protocol` honour it, as `request.ip` does), with a host that is not a plain host
 * name or IP literal replaced by the listen address, and a scheme that is not http or https
 * by the connection's own.
 */
export function serverUrl(request: FastifyRequest, config: PlatformConfig): string {
  const configured = config.publicUrl === undefined ? undefined : parsePublicUrl(config.publicUrl);
  if (configured !== undefined) return configured;
  const encrypted = (request.raw.socket as { encrypted?: boolean } | null)?.encrypted === true;
  const claimed = typeof request.protocol === 'string' ? request.protocol.toLowerCase() : '';
  const scheme = claimed === 'https' || claimed === 'http' ? claimed : encrypted ? 'https' : 'http';
  const authority = parseAuthority(request.host) ?? listenAuthority(config);
  return `${scheme}://${authority}`;
}
