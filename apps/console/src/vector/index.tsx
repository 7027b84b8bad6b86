import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';

/** The Vector cloud console: navigation and pages. */
export const vectorConsole: ConsoleDefinition = {
  title: 'Vector cloud console',
  home: '/tables',
  nav: [{ label: 'Home', to: '/tables' }],
  routes: [{ path: '/tables', render: () => <Page title="Vector cloud console">{null}</Page> }],
};
