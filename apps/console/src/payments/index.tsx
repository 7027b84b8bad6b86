import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';
import { webhookNav, webhookRoutes } from '../webhooks';

/** The Payments dashboard: navigation and pages. */
export const paymentsConsole: ConsoleDefinition = {
  title: 'Payments dashboard',
  home: '/payments',
  nav: [{ label: 'Home', to: '/payments' }, webhookNav('/webhooks')],
  routes: [
    ...webhookRoutes({ apiBase: '/v2', pathBase: '/webhooks' }),
    { path: '/payments', render: () => <Page title="Payments dashboard">{null}</Page> },
  ],
};
