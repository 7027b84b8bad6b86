import type { ConsoleDefinition } from '../console-types';
import { TablePage } from './table-page';
import { TablesPage } from './tables-page';
import { TokensPage } from './tokens-page';
import './vector.css';

/** The Vector cloud console: tables (create, delete, query, browse), query latency, API tokens. */
export const vectorConsole: ConsoleDefinition = {
  title: 'Vector cloud console',
  home: '/tables',
  nav: [
    { label: 'Tables', to: '/tables', prefix: '/tables/' },
    { label: 'Settings → API Tokens', to: '/settings/tokens' },
  ],
  routes: [
    { path: '/tables', render: () => <TablesPage /> },
    { path: '/tables/:name', render: ({ name }) => <TablePage key={name} name={name ?? ''} /> },
    { path: '/settings/tokens', render: () => <TokensPage /> },
  ],
};
