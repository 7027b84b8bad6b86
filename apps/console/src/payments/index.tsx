import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';

/** The Payments dashboard: navigation and pages. */
export const paymentsConsole: ConsoleDefinition = {
  title: 'Payments dashboard',
  home: '/payments',
  nav: [{ label: 'Home', to: '/payments' }],
  routes: [{ path: '/payments', render: () => <Page title="Payments dashboard">{null}</Page> }],
};
