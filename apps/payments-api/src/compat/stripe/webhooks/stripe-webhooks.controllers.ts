import { StripeEventsController } from './stripe-events.controller';
import { StripeWebhookEndpointsController } from './stripe-webhook-endpoints.controller';

/** `/v1/webhook_endpoints` and `/v1/events` (StripeModule's controllers). */
export const STRIPE_WEBHOOK_CONTROLLERS = [StripeWebhookEndpointsController, StripeEventsController];
