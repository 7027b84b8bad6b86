import { Injectable } from '@nestjs/common';
import { Clock } from '@app/platform';
import { type ClientRecord, PartnersRepository } from '../partners/partners.repository';
import { AccessTokenService } from './access-token.service';
import { ClientSecretVerifier } from './client-secret.verifier';
import { oauthError } from './oauth-error';

export interface TokenRequest {
  /** Parsed form body (values may be arrays when a field repeats). */
  readonly form: Readonly<Record<string, unknown>>;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  /** The client's address key (address-key.ts): its share of the verification slots. */
  readonly address: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string): ClientCredentials | 'malformed' {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return 'malformed';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    // PostgreSQL text cannot hold U+0000: such credentials can only be wrong.
    if (clientId.includes('\u0000') || clientSecret.includes('\u0000')) return 'malformed';
    return { clientId, clientSecret };
  } catch {
    return 'malformed';
  }
}

/** OAuth 2.0 client credentials grant (RFC 6749 §4.4) for partners. */
@Injectable()
export class TokenService {
  constructor(
    private readonly repository: PartnersRepository,
    private readonly tokens: AccessTokenService,
    private readonly secrets: ClientSecretVerifier,
    private readonly clock: Clock,
  ) {}

  async issue(request: TokenRequest): Promise<TokenResponse> {
    const realm = this.tokens.realm();
    if (!request.contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      throw oauthError('invalid_request', 'The token request must be application/x-www-form-urlencoded.', realm);
    }
    const form = request.form;
    for (const [name, value] of Object.entries(form)) {
      if (Array.isArray(value)) throw oauthError('invalid_request', `Parameter ${name} is repeated.`, realm);
    }
    const field = (name: string): string | undefined => {
      const v = form[name];
      // PostgreSQL text cannot hold U+0000: refuse it here rather than fail the client lookup.
      if (typeof v === 'string' && v.includes('\u0000'))
        throw oauthError('invalid_request', `Parameter ${name} contains a NUL character.`, realm);
      return typeof v === 'string' && v !== '' ? v : undefined;
    };

    const grantType = field('grant_type');
    if (grantType === undefined) throw oauthError('invalid_request', 'Missing grant_type.', realm);

    // Client authentication comes before the grant type check only in error precedence of
    // the credentials themselves; an unsupported grant is reported as such (RFC 6749 §5.2).
    const usedBasic = request.authorization !== undefined && /^Basic\s/i.test(request.authorization);
    const formId = field('client_id');
    const formSecret = field('client_secret');
    if (usedBasic && (formSecret !== undefined || formId !== undefined)) {
      throw oauthError('invalid_request', 'Use one client authentication method: HTTP Basic or form fields, not both.', realm);
    }
    if (grantType !== 'client_credentials') {
      throw oauthError(
        'unsupported_grant_type',
        `Unsupported grant_type '${grantType}'; only client_credentials is supported.`,
        realm,
      );
    }

    let credentials: ClientCredentials;
    if (usedBasic) {
      const parsed = parseBasic(request.authorization ?? '');
      if (parsed === 'malformed') throw oauthError('invalid_client', 'Malformed HTTP Basic client credentials.', realm);
      credentials = parsed;
    } else {
      if (formId === undefined && formSecret === undefined) {
        throw oauthError(
          'invalid_client',
          'Client authentication is required (HTTP Basic or client_id and client_secret).',
          realm,
        );
      }
      if (formId === undefined) throw oauthError('invalid_request', 'Missing client_id.', realm);
      if (formSecret === undefined) throw oauthError('invalid_request', 'Missing client_secret.', realm);
      credentials = { clientId: formId, clientSecret: formSecret };
    }

    const client = await this.repository.findClient(credentials.clientId);
    // Verify against a decoy when the client is unknown, so response time does not reveal it.
    // Throws a 429 when no verification slot can be had (client-secret.verifier.ts).
    let valid = await this.secrets.verify(request.address, credentials.clientSecret, client?.secretHash);
    // The token carries which secret minted it: the current one, or the previous one in grace.
    let secretVersion = client?.secretVersion ?? 0;
    const previous = client?.active ? this.previousInGrace(client) : undefined;
    if (!valid && previous !== undefined) {
      valid = await this.secrets.verify(request.address, credentials.clientSecret, previous);
      secretVersion -= 1;
    }
    if (!client || !valid || !client.active) {
      throw oauthError('invalid_client', 'Client authentication failed.', realm);
    }
    const accessToken = await this.tokens.issue({
      clientId: client.id,
      partnerId: client.partnerId,
      tier: client.tier,
      secretVersion,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.tokens.ttlSeconds };
  }

  /**
   * The rotated-out secret's hash while its grace period runs (POST /api/v1/clients/{id}/
   * rotate-secret with expires_in_hours); from then on that secret is an invalid_client.
   */
  private previousInGrace(client: ClientRecord): string | undefined {
    const { previousSecretHash: hash, previousSecretExpiresAt: until } = client;
    return hash !== null && until !== null && until.getTime() > this.clock.nowMs() ? hash : undefined;
  }
}
