import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';
import { webhookNav, webhookRoutes } from '../webhooks';

/** The Partner dashboard: navigation and pages. */
export const offersConsole: ConsoleDefinition = {
  title: 'Partner dashboard',
  home: '/offers',
  nav: [{ label: 'Home', to: '/offers' }, webhookNav('/settings/webhooks')],
  routes: [
    ...webhookRoutes({ apiBase: '/api/v1', pathBase: '/settings/webhooks' }),
    { path: '/offers', render: () => <Page title="Partner dashboard">{null}</Page> },
  ],
};
