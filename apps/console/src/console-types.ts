import type { Route } from './router';

/** A link of a console's navigation. */
export interface NavItem {
  readonly label: string;
  readonly to: string;
  /** Paths that also mark this item current (e.g. a detail page under it). */
  readonly prefix?: string;
}

/** What each service's console contributes: its navigation and its pages. */
export interface ConsoleDefinition {
  readonly title: string;
  readonly home: string;
  readonly nav: readonly NavItem[];
  readonly routes: readonly Route[];
}
