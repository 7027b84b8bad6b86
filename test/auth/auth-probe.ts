/**
 * The real apps plus one protected `whoami` route each, so the auth tests exercise the
 * real AuthModule wiring of every service before the domain routes exist.
 */
import { Authenticated, CurrentPrincipal, type Principal } from '@app/auth';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import { Controller, type DynamicModule, Get, Module } from '@nestjs/common';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';

@Controller('api/v1/whoami')
@Authenticated('partner')
class PartnerWhoAmI {
  @Get()
  get(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}

@Controller('v1/whoami')
@Authenticated('vector_token')
class VectorWhoAmI {
  @Get()
  get(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}

@Controller('v2/whoami')
@Authenticated('payments_key')
class PaymentsWhoAmI {
  @Get()
  get(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}

function withWhoAmI<C extends PlatformConfig>(
  definition: ServiceDefinition<C>,
  controller: new () => unknown,
): ServiceDefinition<C> {
  @Module({})
  class ProbeModule {}
  return {
    ...definition,
    module: (config: C): DynamicModule => ({
      module: ProbeModule,
      imports: [definition.module(config)],
      controllers: [controller],
    }),
  };
}

export const offersProbe = withWhoAmI(offersService, PartnerWhoAmI);
export const vectorProbe = withWhoAmI(vectorService, VectorWhoAmI);
export const paymentsProbe = withWhoAmI(paymentsService, PaymentsWhoAmI);

export const ADMIN = { authorization: 'Bearer dev-admin-key' };
