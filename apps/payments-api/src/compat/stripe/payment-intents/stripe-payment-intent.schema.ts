import { PAYMENT_INTENT_STATUSES } from '../../../payment-intents/dto/payment-intent.view';

/** The OpenAPI schema of Stripe's PaymentIntent as `/v1` shows it (PaymentIntentView). */
export const STRIPE_PAYMENT_INTENT_SCHEMA = {
  type: 'object',
  description:
    "Stripe's PaymentIntent (docs/stripe.md). status: the latest payment's while it is not failed, else the intent's own; latest_charge: the latest payment's id (a /v2 pay_…)",
  required: ['id', 'object', 'amount', 'currency', 'status', 'created', 'livemode', 'metadata'],
  properties: {
    id: { type: 'string', example: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' },
    object: { type: 'string', enum: ['payment_intent'] },
    amount: { type: 'integer', description: 'minor units' },
    amount_capturable: { type: 'integer', description: 'minor units authorized and not yet captured (requires_capture)' },
    amount_received: { type: 'integer', description: 'minor units captured' },
    canceled_at: { type: 'integer', nullable: true, description: 'Unix seconds' },
    cancellation_reason: { type: 'string', nullable: true },
    capture_method: { type: 'string', enum: ['automatic', 'automatic_async', 'manual'] },
    client_secret: { type: 'string' },
    confirmation_method: { type: 'string', enum: ['automatic'] },
    created: { type: 'integer', description: 'Unix seconds' },
    currency: { type: 'string' },
    customer: { description: 'a customer id, or the customer with expand[]=customer', nullable: true },
    description: { type: 'string', nullable: true },
    last_payment_error: {
      type: 'object',
      nullable: true,
      description: 'the last declined confirmation (type, code, decline_code, message)',
    },
    latest_charge: { type: 'string', nullable: true },
    livemode: { type: 'boolean' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    payment_method: { type: 'string', nullable: true },
    payment_method_types: { type: 'array', items: { type: 'string', enum: ['card'] } },
    status: { type: 'string', enum: PAYMENT_INTENT_STATUSES },
  },
} as const;
