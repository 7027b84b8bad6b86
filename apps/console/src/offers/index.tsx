import type { ConsoleDefinition } from '../console-types';
import { Page } from '../components/ui';
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
    // Settings → Webhooks is built in its own folder; the integrator replaces the placeholder route below.
    { label: 'Settings: Webhooks', to: '/settings/webhooks', prefix: '/settings/webhooks/' },
    { label: 'Settings: API credentials', to: '/settings/api-credentials' },
  ],
  routes: [
    { path: '/offers', render: () => <OffersListPage /> },
    { path: '/offers/:id', render: ({ id = '' }) => <OfferPage key={id} id={id} /> },
    { path: '/settings/api-credentials', render: () => <ApiCredentialsPage /> },
    {
      path: '/settings/webhooks',
      render: () => (
        <Page title="Webhooks">
          <p className="muted">Webhook settings are not available in this build yet.</p>
        </Page>
      ),
    },
  ],
};
