/** The webhooks owner type of payments-api: every endpoint and event belongs to one account in one mode. */
export const PAYMENTS_WEBHOOK_OWNER = 'payments_account';

/** The owner id of a payments account in one mode (test and live never share endpoints or events). */
export function paymentsOwnerId(accountId: string, mode: 'test' | 'live'): string {
  return `${accountId}:${mode}`;
}
