import { renderErrorsUnder } from '@app/platform';
import { type MiddlewareConsumer, Module, type NestModule, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CustomersModule } from '../../customers/customers.module';
import { PaymentsModule } from '../../payments/payments.module';
import { StripePaymentIntentsModule } from './payment-intents/stripe-payment-intents.module';
import { StripeRefundsModule } from './refunds/stripe-refunds.module';
import { stripeRouteError } from './stripe-error';
import { StripeCustomersController } from './stripe-customers.controller';
import { StripeCustomersSearchController } from './search/stripe-customers-search.controller';
import { StripePaymentIntentsSearchController } from './search/stripe-payment-intents-search.controller';
import { StripeSearchRepository } from './search/stripe-search.repository';
import { STRIPE_API_VERSION } from './stripe-webhook-dialect';
import { STRIPE_WEBHOOK_CONTROLLERS } from './webhooks/stripe-webhooks.controllers';

/**
 * `Stripe-Version`: the version the request asked for (any: this API has one shape), else the
 * version it answers as. On every `/v1` answer, errors included.
 */
export function stripeVersionHeader(request: IncomingMessage, response: ServerResponse, next: () => void): void {
  const asked = request.headers['stripe-version'];
  const value = typeof asked === 'string' && /^[\w.-]{1,64}$/.test(asked) ? asked : STRIPE_API_VERSION;
  response.setHeader('Stripe-Version', value);
  next();
}

/**
 * Stripe's `/v1` wire protocol (issue 35, docs/stripe.md): an adapter over the same services
 * as `/v2`, so one customer or payment is visible through both APIs.
 */
@Module({
  imports: [CustomersModule, PaymentsModule, StripePaymentIntentsModule, StripeRefundsModule],
  // the search controllers first: their literal `…/search` paths before the `…/:id` routes
  controllers: [
    StripeCustomersSearchController,
    StripePaymentIntentsSearchController,
    StripeCustomersController,
    ...STRIPE_WEBHOOK_CONTROLLERS,
  ],
  providers: [StripeSearchRepository],
})
export class StripeModule implements NestModule, OnModuleInit {
  constructor(private readonly adapter: HttpAdapterHost) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(stripeVersionHeader).forRoutes('v1/*path');
  }

  /** Requests under /v1 no route took (an unknown path or method) answer in Stripe's body too. */
  onModuleInit(): void {
    renderErrorsUnder(this.adapter.httpAdapter.getInstance<object>(), '/v1', stripeRouteError);
  }
}
