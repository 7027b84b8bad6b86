/** The webhooks owner type of offers-api: every endpoint and event belongs to one partner (owner id = partner id). */
export const PARTNER_WEBHOOK_OWNER = 'partner';
