import type { NavItem } from '../console-types';
import type { Route } from '../router';
import { CataloguePage } from './catalogue-page';
import { EndpointPage } from './endpoint-page';
import { EndpointsPage } from './endpoints-page';
import type { WebhookPaths } from './types';
import './webhooks.css';

/**
 * The Webhooks pages, shared by the consoles whose service mounts libs/webhooks: offers
 * (`/api/v1/webhook-endpoints`, under Settings) and payments (`/v2/webhook-endpoints`).
 * The catalogue's path comes before `/:id`, which would match it too.
 */
export function webhookRoutes(options: WebhookPaths): Route[] {
  const { pathBase } = options;
  return [
    { path: pathBase, render: () => <EndpointsPage paths={options} /> },
    { path: `${pathBase}/event-types`, render: () => <CataloguePage paths={options} /> },
    { path: `${pathBase}/:id`, render: (params) => <EndpointPage key={params['id']} paths={options} id={params['id'] ?? ''} /> },
  ];
}

export function webhookNav(pathBase: string): NavItem {
  return { label: 'Webhooks', to: pathBase, prefix: pathBase };
}
