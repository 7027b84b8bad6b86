/**
 * Who is calling: what an app's authenticator makes of a presented credential. The app
 * declares its own principal types (each with a literal `kind`); libs/auth only needs the kind.
 */
export interface Principal {
  /** The credential kind, as registered by the app (`@Authenticated(kind)`). */
  readonly kind: string;
}
