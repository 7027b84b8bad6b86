import type { ConsoleDefinition } from '../console-types';
import { webhookNav, webhookRoutes } from '../webhooks';
import { ApiCredentialsPage } from './api-credentials';
import { OfferPage } from './offer-page';
import { OffersListPage } from './offers-list';
import './offers.css';

/** The Partner dashboard: navigation and pages. */
export const offersConsole: ConsoleDefinition = {
  title: 'Partner dashboard',
  home: '/offers',
  nav: [
    { label: 'Offers', to: '/offers', prefix: '/offers/' },
    { ...webhookNav('/settings/webhooks'), label: 'Settings: Webhooks' },
    { label: 'Settings: API credentials', to: '/settings/api-credentials' },
  ],
  routes: [
    { path: '/offers', render: () => <OffersListPage /> },
    { path: '/offers/:id', render: ({ id = '' }) => <OfferPage key={id} id={id} /> },
    { path: '/settings/api-credentials', render: () => <ApiCredentialsPage /> },
    ...webhookRoutes({ apiBase: '/api/v1', pathBase: '/settings/webhooks' }),
  ],
};
