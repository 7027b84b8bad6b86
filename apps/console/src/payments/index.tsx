import type { ConsoleDefinition } from '../console-types';
import { ApiKeysPage } from './api-keys';
import { CustomerPage, CustomersPage } from './customers';
import { EventsPage } from './events';
import { PaymentPage } from './payment-page';
import { PaymentsPage } from './payments-list';
import './payments.css';
import { webhookNav, webhookRoutes } from '../webhooks';

/**
 * The Payments dashboard: navigation and pages (contract, "Console (web UI)"). Every page
 * calls the public /v2 routes as the session's mode (Console-Mode, the shell's toggle).
 * `/webhooks` is reserved for the webhook pages (wired in with their own nav item).
 */
export const paymentsConsole: ConsoleDefinition = {
  title: 'Payments dashboard',
  home: '/payments',
  nav: [
    { label: 'Payments', to: '/payments', prefix: '/payments/' },
    { label: 'Customers', to: '/customers', prefix: '/customers/' },
    { label: 'Events', to: '/events' },
    webhookNav('/webhooks'),
    { label: 'Developers → API keys', to: '/developers/api-keys', prefix: '/developers/' },
  ],
  routes: [
    { path: '/payments', render: () => <PaymentsPage /> },
    { path: '/payments/:id', render: ({ id = '' }) => <PaymentPage key={id} id={id} /> },
    { path: '/customers', render: () => <CustomersPage /> },
    { path: '/customers/:id', render: ({ id = '' }) => <CustomerPage key={id} id={id} /> },
    { path: '/events', render: () => <EventsPage /> },
    { path: '/developers/api-keys', render: () => <ApiKeysPage /> },
    ...webhookRoutes({ apiBase: '/v2', pathBase: '/webhooks' }),
  ],
};
