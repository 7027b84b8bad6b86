import { Injectable } from '@nestjs/common';
import { namedPageWhere, type NamedPageFilter, Prisma, PrismaService, type Tx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { ApiKeyKind, PaymentsMode, Permissions } from './payments-key.principal';

export interface PaymentAccountRecord {
  id: string;
  name: string;
  createdAt: Date;
}

/** An account with the counts the operator's list shows. */
export interface PaymentAccountListRecord extends PaymentAccountRecord {
  testApiKeys: number;
  liveApiKeys: number;
}

/**
 * A page of the operator's account list: newest first, after a cursor (or before one, read
 * oldest first: the caller puts the page back in order), names starting with a prefix.
 */
export interface AccountPageRequest extends NamedPageFilter {
  /** Rows to read (the page's limit + 1, to learn whether more follow). */
  readonly take: number;
}

export interface NewPaymentKey {
  readonly id: string;
  readonly mode: PaymentsMode;
  readonly keyHash: string;
  readonly last4: string;
  readonly kind?: ApiKeyKind;
  readonly name?: string;
  readonly permissions?: Permissions;
}

/** A key as its account sees it (never its hash). */
export interface PaymentKeyRecord {
  id: string;
  accountId: string;
  mode: PaymentsMode;
  kind: ApiKeyKind;
  name: string | null;
  last4: string | null;
  permissions: Prisma.JsonValue;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const RECORD = {
  id: true,
  accountId: true,
  mode: true,
  kind: true,
  name: true,
  last4: true,
  permissions: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

/** The modes a key sees: its own, or both for a live secret key (decisions.md, 96). */
export type KeyScope = { readonly accountId: string; readonly modes: readonly PaymentsMode[] };

/** Keys that still authenticate at `now`: not revoked, not expired. */
const working = (now: Date): Prisma.PaymentApiKeyWhereInput => ({
  revokedAt: null,
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});

/**
 * Payment accounts and their API keys; only a key's SHA-256 (and last 4 characters) is
 * stored. Every method on keys names the account.
 */
@Injectable()
export class PaymentAccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: Tx, id: string, name: string, keys: readonly NewPaymentKey[]): Promise<PaymentAccountRecord> {
    return tx.paymentAccount.create({
      data: { id, name, keys: { create: keys.map((k) => keyData(k)) } },
      select: { id: true, name: true, createdAt: true },
    });
  }

  /** The account's id and name, or null. */
  findAccount(id: string): Promise<{ id: string; name: string } | null> {
    return this.prisma.paymentAccount.findUnique({ where: { id }, select: { id: true, name: true } });
  }

  /** The account's position in the operator's list, or null. */
  accountCursor(id: string): Promise<Cursor | null> {
    return this.prisma.paymentAccount.findUnique({ where: { id }, select: { id: true, createdAt: true } });
  }

  /**
   * The operator's list, in one statement: the page (newest first, read backwards along
   * payment_accounts_created_at_id_idx, or by payment_accounts_name_lower_idx for a prefix),
   * then each account's working keys by mode, evaluated for the page's rows only (the inner
   * LIMIT comes first), each one range of payment_api_keys' (account_id, created_at, id) index.
   */
  adminPage(request: AccountPageRequest, now: Date): Promise<PaymentAccountListRecord[]> {
    const where = namedPageWhere('a', request);
    // ending_before reads the accounts just newer than the cursor, oldest first (as keyset())
    const order = request.before === undefined ? Prisma.sql`DESC` : Prisma.sql`ASC`;
    return this.prisma.$queryRaw<PaymentAccountListRecord[]>`
      SELECT page.id, page.name, page."createdAt", keys."testApiKeys", keys."liveApiKeys"
        FROM (SELECT a.id, a.name, a.created_at AS "createdAt"
                FROM payment_accounts a ${where}
               ORDER BY a.created_at ${order}, a.id ${order}
               LIMIT ${request.take}::int) page
       CROSS JOIN LATERAL (
             SELECT (count(*) FILTER (WHERE k.mode = 'test'))::int AS "testApiKeys",
                    (count(*) FILTER (WHERE k.mode = 'live'))::int AS "liveApiKeys"
               FROM payment_api_keys k
              WHERE k.account_id = page.id AND k.revoked_at IS NULL
                AND (k.expires_at IS NULL OR k.expires_at > ${now}::timestamptz)) keys
       ORDER BY page."createdAt" ${order}, page.id ${order}`;
  }

  /** The key presented (by hash), unless revoked; expiry is the caller's to check (against its clock). */
  findActiveKey(keyHash: string): Promise<{
    id: string;
    accountId: string;
    mode: PaymentsMode;
    kind: ApiKeyKind;
    permissions: Prisma.JsonValue;
    expiresAt: Date | null;
    last4: string | null;
  } | null> {
    return this.prisma.paymentApiKey.findFirst({
      where: { keyHash, revokedAt: null },
      select: { id: true, accountId: true, mode: true, kind: true, permissions: true, expiresAt: true, last4: true },
    });
  }

  /**
   * Locks the account row until the transaction ends: rolls, creations and revocations of one
   * account's keys run one at a time, so "the only working secret key" and the key limit
   * cannot be raced past.
   */
  async lockAccount(tx: Tx, accountId: string): Promise<void> {
    await tx.$queryRaw`SELECT id FROM payment_accounts WHERE id = ${accountId} FOR UPDATE`;
  }

  createKey(tx: Tx, accountId: string, key: NewPaymentKey): Promise<PaymentKeyRecord> {
    return tx.paymentApiKey.create({ data: { ...keyData(key), accountId }, select: RECORD });
  }

  /** How many keys of the account and mode still work at `now`. */
  countWorking(tx: Tx, accountId: string, mode: PaymentsMode, now: Date): Promise<number> {
    return tx.paymentApiKey.count({ where: { accountId, mode, ...working(now) } });
  }

  /**
   * The ids of the secret keys of the account and mode that manage keys: not revoked and not
   * in a grace period (no expiry; a rolled key in grace cannot manage keys).
   */
  async managingSecretKeys(tx: Tx, accountId: string, mode: PaymentsMode): Promise<string[]> {
    const rows = await tx.paymentApiKey.findMany({
      where: { accountId, mode, kind: 'secret', revokedAt: null, expiresAt: null },
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  /**
   * Sets `expiresAt` on the working secret keys of the account and mode that would otherwise
   * work longer (never extends an earlier expiry); returns the ids it changed.
   */
  async expireSecretKeys(tx: Tx, accountId: string, mode: PaymentsMode, now: Date, at: Date): Promise<string[]> {
    const rows = await tx.paymentApiKey.findMany({
      where: {
        accountId,
        mode,
        kind: 'secret',
        revokedAt: null,
        OR: [{ expiresAt: null }, { expiresAt: { gt: at } }],
        AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }],
      },
      select: { id: true },
    });
    const ids = rows.map((r) => r.id);
    if (ids.length > 0) await tx.paymentApiKey.updateMany({ where: { id: { in: ids }, accountId }, data: { expiresAt: at } });
    return ids;
  }

  /** A key of the account (of either mode), revoked or not. */
  findKey(tx: Tx, accountId: string, id: string): Promise<PaymentKeyRecord | null> {
    return tx.paymentApiKey.findFirst({ where: { id, accountId }, select: RECORD });
  }

  /** Revokes a working key of the account; false when it has none by that id. */
  async revoke(tx: Tx, accountId: string, id: string, now: Date): Promise<boolean> {
    const { count } = await tx.paymentApiKey.updateMany({ where: { id, accountId, ...working(now) }, data: { revokedAt: now } });
    return count > 0;
  }

  async cursor(scope: KeyScope, id: string): Promise<Cursor | null> {
    return this.prisma.paymentApiKey.findFirst({
      where: { id, accountId: scope.accountId, mode: { in: [...scope.modes] } },
      select: { id: true, createdAt: true },
    });
  }

  /** The working keys of the scope, newest first. */
  list(scope: KeyScope, page: PageRequest, now: Date): Promise<PaymentKeyRecord[]> {
    const { where, orderBy, take } = keyset(page);
    return this.prisma.paymentApiKey.findMany({
      where: { AND: [{ accountId: scope.accountId, mode: { in: [...scope.modes] }, ...working(now) }, where] },
      orderBy,
      take,
      select: RECORD,
    });
  }

  /** Records a use, at most once a minute per key (one UPDATE that finds nothing to do otherwise). */
  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.paymentApiKey.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(at.getTime() - 60_000) } }] },
      data: { lastUsedAt: at },
    });
  }
}

function keyData(k: NewPaymentKey): Prisma.PaymentApiKeyCreateWithoutAccountInput {
  return {
    id: k.id,
    mode: k.mode,
    keyHash: k.keyHash,
    last4: k.last4,
    kind: k.kind ?? 'secret',
    ...(k.name === undefined ? {} : { name: k.name }),
    ...(k.permissions === undefined ? {} : { permissions: { ...k.permissions } }),
  };
}
