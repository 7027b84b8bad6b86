import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';

/**
 * A kind of bearer credential of the deployment, as a caller may present it to a route
 * that takes another kind (the admin key on a partner route, a token of one service on
 * another). Each app declares the kinds it knows — its own and its neighbours' — and gives
 * them to `PlatformModule.forRoot({ credentialKinds })`, so that a 401 can say what the
 * route takes and what was sent instead, without echoing any of it.
 */
export interface CredentialKind {
  /** How a message names it after "this looks like": `an OAuth 2.0 access token`. */
  readonly name: string;
  /** The `@Authenticated(kind)` of this app that accepts it, if any: a refusal of that kind is about the credential itself. */
  readonly authenticator?: string;
  /** Whether a credential has this kind's shape (a public prefix, a JWT's form). Never a lookup or a comparison with a secret. */
  matches(credential: string): boolean;
}

/** Injection token of the app's credential kinds (PlatformModule.forRoot). */
export const CREDENTIAL_KINDS = Symbol('CREDENTIAL_KINDS');

/** What an Authenticated route takes, in a sentence: "an OAuth 2.0 access token from POST /oauth/token". */
export interface RouteCredential {
  readonly wants: string;
  /** The route's authenticator kind (`@Authenticated(kind)`). */
  readonly kind: string;
}

/** What the admin routes take. */
export const ADMIN_KEY_WANTED = 'the admin key (ADMIN_API_KEY)';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `matches` for credentials that start with one of `prefixes` (a public part of the format). */
export function hasPrefix(...prefixes: string[]): (credential: string) => boolean {
  const pattern = new RegExp(`^(?:${prefixes.map(escape).join('|')})`);
  return (credential) => pattern.test(credential);
}

/**
 * `matches` for a JWT (RFC 7519 compact form): three base64url segments whose first decodes
 * to a JSON object naming its `alg`. Only the public header is read.
 */
export function looksLikeJwt(credential: string): boolean {
  const parts = /^([A-Za-z0-9_-]{8,})\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.exec(credential);
  if (!parts?.[1]) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/**
 * Re-words an authenticator's 401 when the credential is of another kind than the route
 * takes: a kind the app declared (by shape), or — for any credential of no known shape —
 * what the route takes, and that the admin key works only on /admin/v1 routes. The admin
 * key is never compared with on these routes: an answer that changed when a guess equals
 * ADMIN_API_KEY would let anyone test guesses outside the admin routes' failure limit
 * (ADMIN_AUTH_FAILURES_PER_MINUTE). The messages name kinds, never any part of the
 * credential; codes, statuses and headers stay the refusal's own.
 */
@Injectable()
export class CredentialKinds {
  private readonly kinds: readonly CredentialKind[];

  constructor(@Optional() @Inject(CREDENTIAL_KINDS) kinds?: readonly CredentialKind[]) {
    this.kinds = kinds ?? [];
  }

  /** The declared kind whose shape `credential` has, if any. */
  kindOf(credential: string): CredentialKind | undefined {
    return this.kinds.find((kind) => kind.matches(credential));
  }

  /**
   * `refusal` (an authenticator's 401 on a route taking `route`) re-worded: unchanged when the
   * credential has the shape of the route's own kind (the refusal is then about the
   * credential itself: expired, revoked, unknown); naming the kind it looks like when it has
   * another declared kind's shape; otherwise (the admin key, a typo, anything) with what the
   * route takes added — the same words whatever the credential was.
   */
  explainRefusal<Code extends string>(refusal: DomainError<Code>, credential: string, route: RouteCredential): DomainError<Code> {
    // The refusal's own code, re-raised with a clearer message (typed, so the catalogue check trusts it).
    const code: Code = refusal.code;
    const kind = this.kindOf(credential);
    if (kind?.authenticator === route.kind) return refusal;
    const message = kind
      ? `This route takes ${route.wants}; this looks like ${kind.name}.`
      : `${refusal.message.replace(/\.?$/, '.')} This route takes ${route.wants} (the admin key works only on /admin/v1 routes).`;
    return new DomainError<Code>(code, message, {
      headers: refusal.headers,
      details: refusal.details,
      ...(refusal.param === undefined ? {} : { param: refusal.param }),
    });
  }

  /** The message of a wrong admin key: what it looks like when its shape is a declared kind. */
  wrongAdminKey(presented: string): string | undefined {
    const kind = this.kindOf(presented);
    return kind && `This route takes ${ADMIN_KEY_WANTED}; this looks like ${kind.name}.`;
  }
}
