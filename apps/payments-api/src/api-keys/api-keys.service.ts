import { Injectable } from '@nestjs/common';
import { apiKeyHash, invalidApiKey, newOpaqueSecret, RevocationBus } from '@app/auth';
import { Clock, newId, NotFoundError, type Tx, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { page, resolvePage } from '../common/list';
import { PaymentsError } from '../errors';
import { PaymentAccountsRepository } from '../accounts/payment-accounts.repository';
import { PAYMENTS_KEY_REVOKED, PAYMENTS_REALM } from '../accounts/payments-key.authenticator';
import {
  PERMISSION_RESOURCES,
  type PaymentsKeyPrincipal,
  type PaymentsMode,
  type Permissions,
} from '../accounts/payments-key.principal';
import type { ApiKeyCreateDto, ApiKeyListQuery, ApiKeyPermissionsDto, ApiKeyRollDto } from './dto/api-key.dto';
import { type ApiKeyCreatedView, type ApiKeyListView, apiKeyView, type DeletedApiKeyView } from './dto/api-key.view';

/**
 * Keys of one account and mode that may work at once: the rate limit counts per key, so
 * unbounded self-service keys would multiply an account's share (as vector tokens).
 */
export const MAX_KEYS_PER_MODE = 100;

const HOUR_MS = 3_600_000;

/**
 * An account's own API keys (`/v2/api-keys`): roll its secret keys, make restricted keys,
 * list and revoke them. Restricted keys never get here (KeyResource 'api_keys'). A secret key
 * manages the keys of its own mode; a live secret key those of both modes (decisions.md, 96).
 * A key's secret is returned once, then only its hash and last 4 characters exist.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly repository: PaymentAccountsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly revocations: RevocationBus,
  ) {}

  /**
   * A new secret key of `mode`; the working secret keys of that mode stop after
   * `expires_in_hours` (at once by default; an earlier expiry stays).
   */
  async roll(caller: PaymentsKeyPrincipal, dto: ApiKeyRollDto, idempotency?: IdempotentRequest): Promise<ApiKeyCreatedView> {
    this.mayManage(caller, dto.mode);
    const secret = newOpaqueSecret(`sk_${dto.mode}_`);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + (dto.expires_in_hours ?? 0) * HOUR_MS);
    const { view, expired } = await this.transactions.run(
      async (tx) => {
        await this.repository.lockAccount(tx, caller.accountId);
        await this.notInGrace(tx, caller, now);
        const expired = await this.repository.expireSecretKeys(tx, caller.accountId, dto.mode, now, expiresAt);
        const row = await this.repository.createKey(tx, caller.accountId, {
          id: newId('key'),
          mode: dto.mode,
          keyHash: apiKeyHash(secret),
          last4: secret.slice(-4),
        });
        await this.withinLimit(tx, caller.accountId, dto.mode, now);
        return { view: { ...apiKeyView(row), secret }, expired };
      },
      // what an Idempotency-Key replays (stored sealed): the answer, not the expired ids
      {
        completion: idempotency?.completion<{ view: ApiKeyCreatedView; expired: string[] }>(({ view }) => ({
          status: 201,
          body: view,
        })),
      },
    );
    // The cached principals of the replaced keys hold their old expiry: drop them everywhere.
    for (const id of expired) await this.revocations.publish(PAYMENTS_KEY_REVOKED, id);
    return view;
  }

  /** A restricted key (`rk_…`) with the permissions given (a resource left out is "none"). */
  async create(caller: PaymentsKeyPrincipal, dto: ApiKeyCreateDto, idempotency?: IdempotentRequest): Promise<ApiKeyCreatedView> {
    this.mayManage(caller, dto.mode);
    const secret = newOpaqueSecret(`rk_${dto.mode}_`);
    const now = this.clock.now();
    // The answer is built inside the transaction: it is what an Idempotency-Key replays (stored sealed).
    return this.transactions.run(
      async (tx) => {
        await this.repository.lockAccount(tx, caller.accountId);
        await this.notInGrace(tx, caller, now);
        const created = await this.repository.createKey(tx, caller.accountId, {
          id: newId('key'),
          mode: dto.mode,
          keyHash: apiKeyHash(secret),
          last4: secret.slice(-4),
          kind: 'restricted',
          name: dto.name,
          permissions: permissionsOf(dto.permissions),
        });
        await this.withinLimit(tx, caller.accountId, dto.mode, now);
        return { ...apiKeyView(created), secret };
      },
      { completion: idempotency?.completion() },
    );
  }

  /** The keys that still work, of the modes the caller manages, newest first. */
  async list(caller: PaymentsKeyPrincipal, query: ApiKeyListQuery): Promise<ApiKeyListView> {
    const scope = { accountId: caller.accountId, modes: managedModes(caller) };
    const request = await resolvePage(query, 'api key', (id) => this.repository.cursor(scope, id));
    const rows = await this.repository.list(scope, request, this.clock.now());
    return page(rows, request, '/v2/api-keys', apiKeyView);
  }

  /**
   * Revokes a working key of the account at once, on every instance. A key may revoke itself
   * unless it is the only secret key of its mode out of a grace period (the account would be
   * locked out: a key in grace cannot manage keys, and expires).
   */
  async revoke(caller: PaymentsKeyPrincipal, id: string): Promise<DeletedApiKeyView> {
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      await this.repository.lockAccount(tx, caller.accountId);
      await this.notInGrace(tx, caller, now);
      const row = await this.repository.findKey(tx, caller.accountId, id);
      if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) {
        throw new NotFoundError('api key', id, 'id');
      }
      this.mayManage(caller, row.mode);
      if (row.id === caller.keyId && row.kind === 'secret') {
        // keys in grace do not count: they cannot manage keys, and they expire
        const others = (await this.repository.managingSecretKeys(tx, caller.accountId, row.mode)).filter((k) => k !== id);
        if (others.length === 0) {
          throw new PaymentsError(
            'last_secret_key',
            `This key is the only secret key of ${row.mode} mode that can manage keys (keys in a grace period cannot) and cannot revoke itself: roll it (POST /v2/api-keys/roll) instead.`,
            { param: 'id' },
          );
        }
      }
      await this.repository.revoke(tx, caller.accountId, id, now);
    });
    await this.revocations.publish(PAYMENTS_KEY_REVOKED, id);
    return { id, object: 'api_key', deleted: true };
  }

  /**
   * A key in its grace period (rolled with `expires_in_hours`: it has an expiry) cannot roll,
   * create or revoke keys (403 `credential_in_grace`), so a leaked key cannot undo the roll
   * that replaced it: the owner's newest key always survives. Read under the account lock,
   * from the database, not the cached principal: a roll committed just before counts. A
   * console session acts as the account's current secret key of its mode, never in grace.
   */
  private async notInGrace(tx: Tx, caller: PaymentsKeyPrincipal, now: Date): Promise<void> {
    if (caller.via === 'console') return;
    const key = await this.repository.findKey(tx, caller.accountId, caller.keyId);
    if (!key || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now)) {
      throw invalidApiKey(PAYMENTS_REALM); // revoked or expired since it authenticated this request
    }
    if (key.expiresAt !== null) {
      throw new PaymentsError(
        'credential_in_grace',
        `This key was rolled and stops working at ${key.expiresAt.toISOString()}: it cannot roll, create or revoke keys. Manage keys with the newest secret key (the one the roll returned).`,
      );
    }
  }

  /** A test key cannot obtain, see or revoke live keys. */
  private mayManage(caller: PaymentsKeyPrincipal, mode: PaymentsMode): void {
    if (!managedModes(caller).includes(mode)) {
      throw new PaymentsError(
        'permission_denied',
        `A ${caller.mode}-mode key cannot manage ${mode}-mode keys: use a live secret key (sk_live_…).`,
      );
    }
  }

  /** Refuses (and so rolls back) a change that leaves more than MAX_KEYS_PER_MODE working keys. */
  private async withinLimit(tx: Tx, accountId: string, mode: PaymentsMode, now: Date): Promise<void> {
    if ((await this.repository.countWorking(tx, accountId, mode, now)) > MAX_KEYS_PER_MODE) {
      throw new PaymentsError(
        'api_key_limit_reached',
        `An account has at most ${MAX_KEYS_PER_MODE} working keys per mode; revoke one (DELETE /v2/api-keys/{id}) first.`,
      );
    }
  }
}

/** A live secret key manages both modes; any other key its own. */
function managedModes(caller: PaymentsKeyPrincipal): PaymentsMode[] {
  return caller.mode === 'live' ? ['test', 'live'] : [caller.mode];
}

function permissionsOf(dto: ApiKeyPermissionsDto): Permissions {
  const out = {} as Record<(typeof PERMISSION_RESOURCES)[number], Permissions[keyof Permissions]>;
  for (const resource of PERMISSION_RESOURCES) out[resource] = dto[resource] ?? 'none';
  return out;
}
