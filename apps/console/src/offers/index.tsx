import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';

/** The Partner dashboard: navigation and pages. */
export const offersConsole: ConsoleDefinition = {
  title: 'Partner dashboard',
  home: '/offers',
  nav: [{ label: 'Home', to: '/offers' }],
  routes: [{ path: '/offers', render: () => <Page title="Partner dashboard">{null}</Page> }],
};
