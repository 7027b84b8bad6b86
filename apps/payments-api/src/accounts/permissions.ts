import { SetMetadata } from '@nestjs/common';
import type { RouteTarget } from '@app/auth';
import { PaymentsError } from '../errors';
import type { PaymentsKeyPrincipal, PermissionLevel, PermissionResource } from './payments-key.principal';

/**
 * What a route of payments-api touches, for restricted keys: one of the grantable resources,
 * or `api_keys` (key management, which only secret keys may do).
 */
export type KeyResource = PermissionResource | 'api_keys';

const KEY_RESOURCE = 'payments:key-resource';

/**
 * Declares the resource every route of a controller touches (class decorator): GET routes
 * need "read" on it, every other method "write". Restricted keys are refused on a route of a
 * controller without one (fail closed), so a new controller must declare it and a new route
 * on a declared controller is covered without more code.
 */
export const KeyResource = (resource: KeyResource): ClassDecorator => SetMetadata(KEY_RESOURCE, resource);

/** The resource a controller class declares (undefined: none). */
export function keyResourceOf(controller: object): KeyResource | undefined {
  return Reflect.getMetadata(KEY_RESOURCE, controller) as KeyResource | undefined;
}

const LEVELS: Readonly<Record<PermissionLevel, number>> = { none: 0, read: 1, write: 2 };

/** GET reads; every other method writes (Stripe's rule for restricted keys). */
export function levelNeeded(method: string): Exclude<PermissionLevel, 'none'> {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** Name the key as Stripe does in its 403s: prefix and last 4 characters, never the secret. */
function keyLabel(p: PaymentsKeyPrincipal): string {
  return `rk_${p.mode}_…${p.last4 ?? ''}`;
}

/**
 * Refuses a restricted key a route beyond its permissions (403 `permission_denied`, naming
 * the resource and the level needed). Secret keys reach every route.
 */
export function authorizeKey(principal: PaymentsKeyPrincipal, route: RouteTarget): void {
  if (principal.keyKind === 'secret') return;
  const resource = keyResourceOf(route.controller);
  if (resource === undefined) {
    throw new PaymentsError(
      'permission_denied',
      `The restricted key ${keyLabel(principal)} cannot call this route: use a secret key.`,
    );
  }
  if (resource === 'api_keys') {
    throw new PaymentsError(
      'permission_denied',
      `The restricted key ${keyLabel(principal)} cannot manage API keys: use a secret key (sk_${principal.mode}_…).`,
    );
  }
  const needed = levelNeeded(route.method);
  const granted = principal.permissions?.[resource] ?? 'none';
  if (LEVELS[granted] < LEVELS[needed]) {
    throw new PaymentsError(
      'permission_denied',
      `The restricted key ${keyLabel(principal)} does not have the permission this request needs: ${resource} "${needed}" (it has ${resource} "${granted}"). Use a key with ${resource}: "${needed}" or more.`,
    );
  }
}
