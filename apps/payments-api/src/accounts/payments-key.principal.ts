/** Test and live data never mix: every object belongs to one account in one mode. */
export type PaymentsMode = 'test' | 'live';

/** A secret key (`sk_…`) can do everything in its mode; a restricted key (`rk_…`) only what its permissions allow. */
export type ApiKeyKind = 'secret' | 'restricted';

/** What a restricted key may do with one resource; "write" implies "read". */
export type PermissionLevel = 'none' | 'read' | 'write';

/** The resources a restricted key is granted permissions on (one per payments controller family). */
export const PERMISSION_RESOURCES = ['customers', 'payments', 'refunds', 'webhooks', 'events'] as const;
export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export type Permissions = Readonly<Record<PermissionResource, PermissionLevel>>;

/** An `sk_…` or `rk_…` key bound to one account and one mode. */
export interface PaymentsKeyPrincipal {
  readonly kind: 'payments_key';
  readonly accountId: string;
  readonly mode: PaymentsMode;
  /** The key's id, or the console session's id (`via: 'console'`). */
  readonly keyId: string;
  /**
   * A key, or a console session acting as the account's current secret key of its mode:
   * never in a grace period (decisions.md, 161).
   */
  readonly via: 'key' | 'console';
  readonly keyKind: ApiKeyKind;
  /** Restricted keys only (null for secret keys). */
  readonly permissions: Permissions | null;
  /** Epoch ms after which the key answers 401 (a rolled key), checked on every request, cached or not. */
  readonly expiresAt: number | null;
  /** The key's last 4 characters, to name it in a 403 (null for keys made before they were kept). */
  readonly last4: string | null;
}
