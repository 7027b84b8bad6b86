import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';
import type { Authenticator } from './authenticator';

/**
 * The authenticators the app registered, by kind. They are providers of the app's modules,
 * so they are looked up in the whole application once it is built.
 */
@Injectable()
export class AuthenticatorRegistry implements OnApplicationBootstrap {
  private byKind: ReadonlyMap<string, Authenticator> | undefined;

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Fails the boot when a registered authenticator is not provided by any module, or two share a kind. */
  onApplicationBootstrap(): void {
    this.resolve();
  }

  /** The authenticator of `kind`; throws (a programming error, rendered as a 500) when none is registered. */
  get(kind: string): Authenticator {
    const authenticator = this.resolve().get(kind);
    if (!authenticator) throw new Error(`AuthModule: no authenticator registered for @Authenticated('${kind}')`);
    return authenticator;
  }

  private resolve(): ReadonlyMap<string, Authenticator> {
    if (this.byKind) return this.byKind;
    const byKind = new Map<string, Authenticator>();
    for (const type of this.options.authenticators) {
      const authenticator = this.moduleRef.get(type, { strict: false });
      if (byKind.has(authenticator.kind)) throw new Error(`AuthModule: two authenticators for kind '${authenticator.kind}'`);
      byKind.set(authenticator.kind, authenticator);
    }
    this.byKind = byKind;
    return byKind;
  }
}
