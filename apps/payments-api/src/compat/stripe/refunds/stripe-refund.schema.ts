/** The OpenAPI schema of Stripe's Refund as `/v1` shows it (stripeRefund). */
export const STRIPE_REFUND_SCHEMA = {
  type: 'object',
  description: "Stripe's Refund of a payment intent's payment (docs/stripe.md); charge: the refunded payment's id (a /v2 pay_…)",
  required: ['id', 'object', 'amount', 'charge', 'created', 'currency', 'metadata', 'payment_intent', 'status'],
  properties: {
    id: { type: 'string', example: 're_1NispeLkdIwHu7ixQq0Rhq7T' },
    object: { type: 'string', enum: ['refund'] },
    amount: { type: 'integer', description: 'minor units' },
    charge: { type: 'string' },
    created: { type: 'integer', description: 'Unix seconds' },
    currency: { type: 'string' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    payment_intent: { description: 'a payment intent id, or the intent with expand[]=payment_intent' },
    reason: { type: 'string', nullable: true, enum: ['duplicate', 'fraudulent', 'requested_by_customer'] },
    status: { type: 'string', enum: ['succeeded'] },
  },
} as const;
